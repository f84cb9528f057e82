// The table as this viewer knows it: built from a `snapshot`, then changed by each numbered
// event, in order. It does arithmetic on what it is told (stacks, bets, pots) and nothing
// else: legal actions, amounts, hand names and results all come from the server.

const CHAT_KEPT = 100; // as the server keeps

export function fromSnapshot(s) {
  const state = {
    table: s.table,
    seats: s.seats.slice(),
    you: { ...s.you, request: s.you.request || null, refused: false },
    requests: s.requests || [],
    chat: (s.chat || []).slice(-CHAT_KEPT),
    hand: null,
    lastHand: null,
  };
  if (s.hand) {
    const h = s.hand;
    const players = {};
    h.players.forEach((p) => { players[p.seat] = { ...p, last: null }; });
    state.hand = {
      id: h.id,
      number: h.number,
      button: h.button,
      bombPot: h.bomb_pot,
      street: h.street,
      phase: h.phase,
      boards: h.boards,
      pots: h.pots,
      order: h.players.map((p) => p.seat),
      players,
      names: namesAt(state.seats, h.players.map((p) => p.seat)),
      actor: h.actor,
      counter: h.counter,
      legal: h.legal || null,
      // stopped by the host's pause: `timeout` is what is left, not counting down
      stopped: !!h.clock_stopped,
      deadline: h.timeout != null && !h.clock_stopped ? performance.now() + h.timeout * 1000 : null,
      timeout: h.timeout,
      timeBank: h.time_bank != null ? h.time_bank : null, // as the turn's news said
      inBank: !!h.in_time_bank,
      short: h.phase === 'showdown' || h.phase === 'run-it-twice', // their own clock, no bank
      reader: h.reader || null,
      awards: [],
      votes: {},
      offered: [],
      ended: h.phase === 'complete',
      canShow: !!h.can_show,
      rabbit: null, // the rabbit hunt's boards: never played (after a hand, app/tables/after.py)
      rabbitOpen: !!h.rabbit,
      showCards: h.show_cards || null, // your cards you may still show, one by one
    };
    (h.after || []).forEach((note) => afterNote(state.hand, note));
  }
  return state;
}

// A finished hand's note (a snapshot's `after`, or the `rabbit` and `cards_shown` events).
function afterNote(hand, note) {
  if (note.kind === 'rabbit') {
    hand.rabbit = { boards: note.boards, name: note.name };
    hand.rabbitOpen = false;
  } else if (note.kind === 'show') {
    const p = hand.players[note.seat];
    if (p) p.shownCards = [...new Set([...(p.shownCards || []), ...note.cards])];
  }
}

function emptyBoards(boards) {
  return [Array.from({ length: boards }, () => [])];
}

export function actionLabel(ev) {
  switch (ev.action) {
    case 'fold': return 'Fold';
    case 'check': return 'Check';
    case 'call': return ev.all_in ? `Call ${ev.amount} · all in` : `Call ${ev.amount}`;
    case 'bet': return ev.all_in ? `Bet ${ev.bet} · all in` : `Bet ${ev.bet}`;
    case 'raise': return ev.all_in ? `Raise to ${ev.bet} · all in` : `Raise to ${ev.bet}`;
    case 'show': return 'Show';
    case 'muck': return 'Muck';
    default: return ev.action;
  }
}

// Apply one event (in `seq` order). Returns the state (changed in place).
export function applyEvent(state, ev) {
  const hand = state.hand;
  const mine = hand && ev.hand === hand.id;
  switch (ev.type) {
    case 'hand_started': {
      if (hand) state.lastHand = hand;
      const players = {};
      ev.seats.forEach((seat, i) => {
        players[seat] = {
          seat, stack: ev.stacks[i], bet: 0, committed: 0, folded: false, all_in: false,
          shown: false, mucked: false, last: null,
        };
      });
      state.hand = {
        id: ev.hand, number: ev.number, button: ev.button, bombPot: ev.bomb_pot,
        straddle: ev.straddle, street: 'preflop', phase: 'betting',
        boards: emptyBoards(state.table.config.boards), pots: [], order: ev.seats.slice(),
        players, names: namesAt(state.seats, ev.seats), actor: null, counter: 0, legal: null, deadline: null, timeout: null,
        timeBank: null, inBank: false, reader: null, awards: [], votes: {}, offered: [],
        ended: false,
      };
      state.table.button = ev.button;
      state.table.hands_played = ev.number;
      break;
    }
    case 'forced_bet': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      if (!p) break;
      p.stack -= ev.amount;
      p.committed += ev.amount;
      p.all_in = ev.all_in;
      if (ev.kind === 'ante' || ev.kind === 'dead') {
        addToPot(hand, ev.amount);
        p.last = ev.kind === 'ante' ? `Ante ${ev.amount}` : `Dead ${ev.amount}`;
      } else {
        p.bet += ev.amount;
        p.last = ev.kind === 'post' ? `Post ${ev.amount}` : `Blind ${ev.amount}`;
      }
      break;
    }
    case 'hole_cards': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      if (p && ev.cards) p.cards = ev.cards;
      break;
    }
    case 'round':
      if (!mine) break;
      hand.street = ev.street;
      hand.phase = 'betting';
      Object.values(hand.players).forEach((p) => {
        if (!p.folded && !p.all_in) p.last = null;
      });
      break;
    case 'turn':
      if (!mine) break;
      // the same turn again, with news of its clock only: the host's pause stopped it, or
      // the resume restarts it (the time bank's news says `in_time_bank`)
      hand.clockNews = hand.actor === ev.seat && hand.counter === ev.counter
        && (!!ev.clock_stopped || !!hand.stopped);
      hand.actor = ev.seat;
      hand.counter = ev.counter;
      hand.phase = ev.phase;
      hand.legal = ev.legal || null;
      hand.timeout = ev.timeout;
      hand.stopped = !!ev.clock_stopped; // the host's pause: the clock keeps what is left
      hand.deadline = ev.timeout != null && !hand.stopped ? performance.now() + ev.timeout * 1000 : null;
      hand.timeBank = ev.time_bank;
      hand.inBank = ev.in_time_bank;
      hand.short = !!ev.short; // a show-or-muck choice or a vote: showdown_time, never the bank
      break;
    case 'acted': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      if (!p) break;
      hand.counter += 1;
      if (ev.action === 'fold') {
        p.folded = true;
        p.cards = undefined;
      } else if (ev.action !== 'show' && ev.action !== 'muck') {
        p.committed += ev.bet - p.bet;
        p.bet = ev.bet;
        p.stack = ev.stack;
        p.all_in = ev.all_in;
      }
      p.last = actionLabel(ev);
      hand.actor = null;
      hand.legal = null;
      hand.deadline = null;
      hand.stopped = false;
      break;
    }
    case 'bet_returned': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      if (!p) break;
      p.bet -= ev.amount;
      p.committed -= ev.amount;
      p.stack += ev.amount;
      break;
    }
    case 'pots':
      if (!mine) break;
      hand.pots = ev.pots;
      Object.values(hand.players).forEach((p) => { p.bet = 0; });
      break;
    case 'board': {
      if (!mine) break;
      while (hand.boards.length <= ev.run) hand.boards.push(hand.boards[0].map((b) => b.slice()));
      hand.boards[ev.run][ev.board].push(...ev.cards);
      break;
    }
    case 'runs':
      if (!mine) break;
      hand.runs = ev.runs;
      if (ev.runs > 1 && hand.boards.length === 1) {
        // The second run starts from the cards both runs share (dealt so far).
        hand.boards.push(hand.boards[0].map((b) => b.slice()));
      }
      hand.offered = [];
      break;
    case 'run_it_twice_offered':
      if (mine) { hand.offered = ev.seats; hand.votes = {}; }
      break;
    case 'run_it_twice_voted':
      if (mine) hand.votes[ev.seat] = ev.agree;
      break;
    case 'shown': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      if (p) { p.cards = ev.cards; p.shown = true; p.last = 'Show'; }
      if (ev.seat === state.you.seat) { hand.canShow = false; hand.showCards = null; } // once
      break;
    }
    case 'mucked': {
      if (!mine) break;
      const p = hand.players[ev.seat];
      // Your own mucked cards stay yours to see (the server sends them to nobody else).
      if (p) { p.mucked = true; if (ev.seat !== state.you.seat) p.cards = undefined; p.last = 'Muck'; }
      break;
    }
    case 'award':
      if (!mine) break;
      hand.awards.push(ev);
      hand.actor = null;
      hand.legal = null;
      break;
    case 'hand_ended':
      if (!mine) break;
      hand.ended = true;
      hand.phase = 'complete';
      hand.actor = null;
      hand.legal = null;
      hand.deadline = null;
      hand.reader = null;
      Object.entries(ev.stacks).forEach(([number, stack]) => {
        const p = hand.players[number];
        if (p) { p.stack = stack; p.bet = 0; }
        const seat = state.seats[number];
        if (seat) state.seats[number] = { ...seat, stack };
      });
      hand.pots = [];
      hand.canShow = !!ev.can_show; // won uncontested: may show once before the next hand
      break;
    case 'after_hand': // what may be asked for now that the hand is over
      if (!mine) break;
      hand.rabbitOpen = !!ev.rabbit;
      hand.showCards = ev.show_cards || null;
      break;
    case 'rabbit':
      if (mine) afterNote(hand, { kind: 'rabbit', boards: ev.boards, name: ev.name });
      break;
    case 'cards_shown': {
      if (!mine) break;
      afterNote(hand, { kind: 'show', seat: ev.seat, cards: ev.cards });
      if (ev.seat === state.you.seat && hand.showCards) {
        hand.showCards = hand.showCards.filter((c) => !ev.cards.includes(c));
      }
      break;
    }
    case 'hand_reader':
      if (mine && ev.boards) hand.reader = ev.boards;
      break;
    case 'seat': {
      const { seq, type, preferences, ...seat } = ev;
      state.seats[ev.seat] = seat;
      if (seat.player_id === state.you.player_id) { state.you.seat = ev.seat; state.you.request = null; }
      if (preferences) state.you.preferences = preferences; // only on your own seat's
      state.requests = state.requests.filter((r) => r.player_id !== seat.player_id);
      break;
    }
    case 'left':
      state.seats[ev.seat] = null;
      if (ev.player_id === state.you.player_id) state.you.seat = null;
      break;
    case 'seat_request': {
      // A request asked again (another seat, another buy-in) keeps its row: the host's rows
      // do not move under the pointer.
      const asked = { player_id: ev.player_id, name: ev.name, seat: ev.seat, buy_in: ev.buy_in };
      const i = state.requests.findIndex((r) => r.player_id === ev.player_id);
      if (i >= 0) state.requests[i] = asked;
      else state.requests.push(asked);
      if (ev.player_id === state.you.player_id) {
        state.you.request = { ...asked };
        state.you.refused = false;
      }
      break;
    }
    case 'seat_refused':
    case 'seat_request_cancelled':
      state.requests = state.requests.filter((r) => r.player_id !== ev.player_id);
      if (ev.player_id === state.you.player_id) {
        state.you.request = null;
        state.you.refused = ev.type === 'seat_refused'; // said in the dock until the next request
      }
      break;
    case 'closing':
      state.table.closing = true;
      break;
    case 'chat': {
      const { seq, type, ...said } = ev;
      state.chat.push(said);
      if (state.chat.length > CHAT_KEPT) state.chat.shift();
      break;
    }
    case 'table':
      state.table.host = ev.host;
      state.table.paused = ev.paused;
      state.table.bomb_pot_next = ev.bomb_pot_next;
      state.table.config = ev.config;
      if (ev.labels) state.table.labels = ev.labels;
      state.table.next_config = ev.next_config;
      state.you.host = ev.host === state.you.player_id;
      if (state.seats.length < ev.config.seats) {
        state.seats.length = ev.config.seats;
        state.seats.fill(null, state.seats.findIndex((s) => s === undefined));
      }
      break;
    default:
      break;
  }
  return state;
}

function addToPot(hand, amount) {
  if (hand.pots.length === 0) hand.pots = [{ amount: 0, seats: hand.order.slice() }];
  hand.pots = hand.pots.map((p, i) => (i === 0 ? { ...p, amount: p.amount + amount } : p));
}

// Who sat in the hand's seats as it began: its result names them after they leave (a
// tournament's last hand ends with everyone unseated).
function namesAt(seats, numbers) {
  return Object.fromEntries(numbers.map((n) => [n, seats[n] ? seats[n].name : null]));
}

// What is in the middle: gathered pots plus the bets in front of the players.
export function potTotal(hand) {
  if (!hand) return 0;
  const gathered = hand.pots.reduce((sum, p) => sum + p.amount, 0);
  const bets = Object.values(hand.players).reduce((sum, p) => sum + p.bet, 0);
  return gathered + bets;
}

// The chips a player must add to stay in: arithmetic on the bets shown (for pre-actions;
// when it is the player's turn, the server's `legal.call` is what counts).
export function toCall(hand, seat) {
  const p = hand && hand.players[seat];
  if (!p) return 0;
  const high = Math.max(0, ...Object.values(hand.players).map((q) => q.bet));
  return Math.min(p.stack, high - p.bet);
}
