// Words for the screen-reader mode and for the accessible names of cards and seats: what the
// server sent, said in sentences. No rules here: the actions and amounts are the server's.
import { potTotal } from './table-state.js';
import { WORDS } from './words.js';

const STREETS = { preflop: 'Pre-flop', flop: 'Flop', turn: 'Turn', river: 'River' };

// "Ace of spades", "10 of hearts, winning card" (app.tables.labels.card_name says the same).
export function cardName(card, mark = '') {
  const { ranks, suits, marks } = WORDS.cards;
  const name = `${ranks[card[0]] || card[0]} of ${suits[card[1]] ? suits[card[1]].name : card[1]}`;
  return marks[mark] ? `${name}, ${marks[mark]}` : name;
}

export const cardsText = (cards) => cards.map((c) => cardName(c)).join(', ');

// The same cards written short, for the eye (the hand log): "A♥ 10♦ 2♣".
const SYMBOLS = { s: '♠', h: '♥', d: '♦', c: '♣' };
export const cardsShort = (cards) => cards.map((c) => `${c[0] === 'T' ? '10' : c[0]}${SYMBOLS[c[1]] || c[1]}`).join(' ');

// "the main pot", "side pot 2": named only when the hand has more than one pot.
export function potName(h, index) {
  if (!h || !h.pots || h.pots.filter((p) => p.amount > 0).length < 2) return '';
  return index === 0 ? 'the main pot' : `side pot ${index}`;
}

// "Bob" or "You" (the verb follows: `verb('raise', you)` is "raise" or "raises").
function who(state, seat) {
  if (seat === state.you.seat && seat != null) return 'You';
  const s = state.seats[seat];
  return s ? s.name : `Seat ${seat + 1}`;
}
const verb = (base, you, third = `${base}s`) => (you ? base : third);

// "Seat 3, Bob, 180 chips, to act": the accessible name of a seat on the felt.
export function seatLabel(state, i) {
  const seat = state.seats[i];
  if (!seat) return `Seat ${i + 1}, open`;
  const h = state.hand;
  const p = h && h.players[i];
  const mine = i === state.you.seat;
  const parts = [`Seat ${i + 1}`, `${seat.name}${mine ? ' (you)' : ''}${seat.bot ? ' (bot)' : ''}`];
  parts.push(`${p && !h.ended ? p.stack : seat.stack} chips`);
  if (h && h.button === i) parts.push('dealer button');
  if (p && p.bet) parts.push(`bet ${p.bet}`);
  if (p && p.folded) parts.push('folded');
  else if (p && p.all_in) parts.push('all in');
  if (seat.away) parts.push('away');
  if (seat.note && !(p && !h.ended)) parts.push(seat.note.toLowerCase());
  if (h && !h.ended && h.actor === i) parts.push('to act');
  return parts.join(', ');
}

function where(h, run, board) {
  const bits = [];
  if (h && h.boards.length > 1) bits.push(`run ${run + 1}`);
  if (h && h.boards[0].length > 1) bits.push(`board ${board + 1}`);
  return bits.join(', ');
}

// The options of a turn, from `legal` as sent: "call 12, or raise from 24 to 60, or fold".
export function turnOptions(state, legal, phase = 'betting') {
  if (phase === 'run-it-twice') return 'run it twice? Type yes or no';
  if (phase === 'showdown') return legal.actions.includes('muck') ? 'show or muck' : 'show';
  const h = state.hand;
  const me = h && h.players[state.you.seat];
  const can = (k) => legal.actions.includes(k);
  const options = [];
  if (can('check')) options.push('check');
  if (can('call')) options.push(`call ${legal.call}${me && legal.call >= me.stack ? ' (all in)' : ''}`);
  const kind = can('bet') ? 'bet' : can('raise') ? 'raise' : null;
  if (kind) {
    options.push(legal.min_to === legal.max_to
      ? `${kind} ${kind === 'raise' ? 'to ' : ''}${legal.min_to}${me && legal.max_to >= me.stack + me.bet ? ' (all in)' : ''}`
      : `${kind} from ${legal.min_to} to ${legal.max_to}`);
  }
  if (can('fold') && !can('check')) options.push('fold');
  return options.join(', or ');
}

export function turnPrompt(state, legal, phase) {
  const h = state.hand;
  const pot = h && phase === 'betting' ? ` Pot ${potTotal(h)}.` : '';
  return `Your turn: ${turnOptions(state, legal, phase)}.${pot}`;
}

export function readerText(reader) {
  return reader.map((r) => {
    const at = r.where ? `${r.where}: ` : '';
    return `${at}${r.high.name}${'low' in r ? `; low: ${r.low ? r.low.name : 'none'}` : ''}`;
  }).join('. ');
}

function readings(h, boards) {
  return boards.map((r) => ({ ...r, where: where(h, r.run, r.board) }));
}

// The whole table in a few sentences (on joining, and the `status` command).
export function statusText(state) {
  const h = state.hand;
  const parts = [];
  const c = state.table.config;
  if (!h) parts.push(`Table ${c.name}. No hand is being played.`);
  else {
    parts.push(`Hand ${h.number}${h.ended ? ', over' : `, ${(STREETS[h.street] || h.street).toLowerCase()}`}.`);
    parts.push(boardText(state));
    if (!h.ended) parts.push(`Pot ${potTotal(h)}.`);
    const p = h.players[state.you.seat];
    if (p && p.cards) parts.push(`Your cards: ${cardsText(p.cards)}.`);
    if (!h.ended && h.actor != null) {
      parts.push(h.actor === state.you.seat && h.legal ? turnPrompt(state, h.legal, h.phase) : `${who(state, h.actor)} to act.`);
    }
  }
  if (state.you.seat == null) parts.push(state.seats.some((x) => !x) ? 'You are watching; open seats can be taken.' : 'You are watching; the table is full.');
  return parts.filter(Boolean).join(' ');
}

export function boardText(state) {
  const h = state.hand;
  if (!h) return 'No board.';
  const lines = [];
  h.boards.forEach((run, r) => run.forEach((board, b) => {
    const at = where(h, r, b);
    lines.push(`${at ? `${at[0].toUpperCase()}${at.slice(1)}: ` : 'Board: '}${board.length ? cardsText(board) : 'no cards yet'}.`);
  }));
  return lines.join(' ');
}

export function seatsText(state) {
  return state.seats.map((_, i) => seatLabel(state, i)).join('. ');
}

export function myCardsText(state) {
  const h = state.hand;
  const p = h && h.players[state.you.seat];
  if (!p || !p.cards) return 'You have no cards.';
  const reading = h.reader && !h.ended ? ` ${readerText(readings(h, h.reader))}.` : '';
  return `Your cards: ${cardsText(p.cards)}.${reading}`;
}

// One numbered event in a sentence, read against the state BEFORE the event is applied
// (so a seat taken is told from a seat changed). Null: nothing worth saying. `cards` writes
// a list of cards: in words to be heard, short for the eye (the hand log).
export function describeEvent(state, ev, cards = cardsText) {
  const h = state.hand;
  const you = ev.seat != null && ev.seat === state.you.seat;
  const name = ev.seat != null ? who(state, ev.seat) : '';
  switch (ev.type) {
    case 'hand_started':
      return `Hand ${ev.number}${ev.bomb_pot ? ', a bomb pot' : ''}. ${who(state, ev.button)} ${verb('have', ev.button === state.you.seat, 'has')} the button.`;
    case 'forced_bet': {
      const what = ev.kind === 'ante' ? `an ante of ${ev.amount}` : ev.kind === 'dead' ? `${ev.amount} dead` : `${ev.amount}`;
      return `${name} ${verb('post', you)} ${what}${ev.all_in ? ', all in' : ''}.`;
    }
    case 'hole_cards':
      return you && ev.cards ? `Your cards: ${cards(ev.cards)}.` : null;
    case 'turn': {
      // The same turn with news of its clock only: the host's pause stopped it or the resume
      // restarts it (said to its player; the table's pause is said to everyone already).
      if (h && h.actor === ev.seat && h.counter === ev.counter && (ev.clock_stopped || h.stopped)) {
        if (!(you && ev.legal) || ev.timeout == null) return null;
        const left = Math.round(ev.timeout);
        return ev.clock_stopped ? `Your clock is stopped: ${left} seconds left.` : `Your clock runs again: ${left} seconds.`;
      }
      if (!(you && ev.legal)) return ev.phase === 'betting' && !ev.in_time_bank ? `${name} to act.` : null;
      const clock = ev.timeout != null ? ` ${Math.round(ev.timeout)} seconds${ev.clock_stopped ? ', clock stopped' : ''}.` : '';
      return `${ev.in_time_bank ? 'Time bank running. ' : ''}${turnPrompt(state, ev.legal, ev.phase)}${clock}`;
    }
    case 'acted': {
      const allIn = ev.all_in ? ', all in' : '';
      switch (ev.action) {
        case 'fold': return `${name} ${verb('fold', you)}.`;
        case 'check': return `${name} ${verb('check', you)}.`;
        case 'call': return `${name} ${verb('call', you)} ${ev.amount}${allIn}.`;
        case 'bet': return `${name} ${verb('bet', you)} ${ev.bet}${allIn}.`;
        case 'raise': return `${name} ${verb('raise', you)} to ${ev.bet}${allIn}.`;
        default: return null; // show and muck are told by `shown` and `mucked`
      }
    }
    case 'board': {
      const at = where(h, ev.run, ev.board);
      return `${STREETS[ev.street] || ev.street}${at ? `, ${at}` : ''}: ${cards(ev.cards)}.`;
    }
    case 'runs':
      return ev.runs > 1 ? 'The rest of the board is dealt twice.' : null;
    case 'run_it_twice_voted':
      return `${name} ${ev.agree ? `${verb('agree', you)} to run it twice` : `${verb('want', you)} one run`}.`;
    case 'shown':
      return `${name} ${verb('show', you)} ${cards(ev.cards)}.`;
    case 'mucked':
      return `${name} ${verb('muck', you)}.`;
    case 'rabbit': { // the rabbit hunt: cards never played, said as such
      const boards = ev.boards.filter((b) => b.length);
      const text = boards.map((b, i) => `${boards.length > 1 ? `board ${i + 1}: ` : ''}${cards(b)}`).join('; ');
      return `Rabbit hunt, not played: ${text}.`;
    }
    case 'cards_shown':
      return `${name} ${verb('show', you)} ${cards(ev.cards)} ${ev.showdown ? 'at the showdown' : 'after the hand'}.`;
    case 'award': {
      const pot = potName(h, ev.pot);
      const half = ev.half === 'whole' ? '' : ` the ${ev.half} half${pot ? ` of ${pot}` : ''},`;
      const from = pot && ev.half === 'whole' ? ` from ${pot}` : '';
      const at = h ? where(h, ev.run, ev.board) : '';
      return `${name} ${verb('win', you)}${half} ${ev.amount}${from}${ev.hand_name ? ` with ${ev.hand_name}` : ''}${at ? ` on ${at}` : ''}.`;
    }
    case 'hand_reader':
      return h && ev.boards ? `Your hand: ${readerText(readings(h, ev.boards))}.` : null;
    case 'seat': {
      const was = state.seats[ev.seat];
      const me = ev.player_id === state.you.player_id;
      const who2 = me ? 'You' : ev.name;
      if (!was || was.player_id !== ev.player_id) return `${ev.name}${ev.bot ? ' (bot)' : ''} ${me ? 'sit' : 'sits'} in seat ${ev.seat + 1} with ${ev.stack}.`;
      if (ev.status === 'sitting_out' && was.status !== 'sitting_out') return `${who2} ${me ? 'sit' : 'sits'} out.`;
      if (ev.status !== 'sitting_out' && was.status === 'sitting_out') return `${who2} ${me ? 'are' : 'is'} back.`;
      if (ev.away !== was.away) return `${who2} ${me ? 'are' : 'is'} ${ev.away ? 'away' : 'back'}.`;
      return null;
    }
    case 'left':
      return `${ev.player_id === state.you.player_id ? 'You leave' : `${name} leaves`} seat ${ev.seat + 1}.`;
    case 'adjusted':
      return `The host adjusts ${you ? 'your' : `${name}'s`} stack by ${ev.amount > 0 ? '+' : ''}${ev.amount}${ev.reason ? `: ${ev.reason}` : ''}${ev.after_hand ? ', after this hand' : ''}.`;
    case 'table':
      if (ev.paused !== state.table.paused) return ev.paused ? 'The table is paused.' : 'The table resumes.';
      return null;
    case 'closing':
      return 'The host closes the table after this hand.';
    default:
      return null;
  }
}

// The live region's lines: the newest kept, each with an id so a redraw adds only new ones.
export class Narrator {
  constructor(keep = 30) {
    this.keep = keep;
    this.lines = [];
    this.next = 1;
  }

  say(text) {
    if (!text) return;
    // The hand reader comes after each street even when the reading did not change.
    if (text.startsWith('Your hand:') && this.lastReading === text) return;
    if (text.startsWith('Your hand:')) this.lastReading = text;
    if (text.startsWith('Hand ')) this.lastReading = null;
    this.lines.push({ id: this.next++, text });
    if (this.lines.length > this.keep) this.lines.shift();
  }

  hear(state, ev) {
    if (state) this.say(describeEvent(state, ev));
  }
}
