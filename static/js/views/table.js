// The table page, rebuilt from the controller's state on every redraw.
import { html } from '../html.js';
import { Card, CardBack, CardSlot } from './cards.js';
import { holeCount, seatMarks } from '../format.js';
import { WORDS } from '../words.js';
import { potTotal } from '../table-state.js';
import { actionsView } from './actions.js';
import { lastHandsView } from './last-hands.js';
import { chatView } from './chat.js';
import { seatLabel } from '../speech.js';
import { dealMark, dealWarning } from './deal-check.js';
import { reactionBubble, reactPicker, reactToggle } from './reactions.js';
import { notice, seatNotice, tableNotice } from './notices.js';
import { lazy } from '../lazy.js';

// Parts drawn only once used (lazy.js): a dialog, the host's open panel, the hand log, the
// replayer's panel, a tournament table's bar. Their code is fetched then, and drawn when it
// is here (a frame later); the table's first load carries none of it.
const STYLED = { styled: true }; // their rules: more.css
const dialogs = lazy(() => import('./dialogs.js'), STYLED);
const host = lazy(() => import('./host.js'), STYLED);
const handLog = lazy(() => import('./hand-log.js'), STYLED);
const replay = lazy(() => import('./replay.js'), STYLED);
const tournament = lazy(() => import('./tournament.js'));
const reader = lazy(() => import('./screen-reader.js')); // the screen-reader mode's panel
const part = (get, ctrl, draw) => { const m = get.now(ctrl.redraw); return m ? draw(m) : null; };

const HALF = { whole: '', high: 'High', low: 'Low' };

export function tableView(ctrl) {
  const s = ctrl.state;
  if (!s) {
    const ended = ctrl.conn === 'closed' || ctrl.conn === 'gone';
    return html`<div class="page table-page">${banner(ctrl)}${ended ? null : html`<p class="loading">Joining the table…</p>`}</div>`;
  }
  const c = s.table.config;
  const h = s.hand;
  const log = ctrl.settings.logOpen;
  return html`<div class=${`page table-page seats-${c.seats}`} data-hand=${h ? h.id : ''} data-phase=${h ? h.phase : ''}>
    ${topbar(ctrl)}
    ${banner(ctrl)}
    ${tableNotice(ctrl)}
    ${c.tournament ? part(tournament, ctrl, (m) => m.tournamentEnd(ctrl.tournament)) : null}
    ${ctrl.settings.screenReader ? part(reader, ctrl, (m) => m.screenReaderView(ctrl)) : null}
    <div class=${log ? 'table-body with-log' : 'table-body'}>
    <div class="table-main">
    ${dealWarning(ctrl)}
    <main class="felt-wrap"><div class="felt-box">
      <div class=${tall(h, c.boards) ? 'felt tall' : 'felt'}>
        <div class="rail"></div>
        ${s.seats.map((seat, i) => seatView(ctrl, i, seat))}
        ${h ? Object.values(h.players).map((p) => betView(ctrl, p)) : null}
        <div class="flights" aria-hidden="true">${flightsView(ctrl)}</div>
        <div class="center">
          ${h && h.bombPot ? html`<span class="badge bomb">Bomb pot</span>` : null}
          ${boardsView(ctrl, h)}
          ${potView(h)}
        </div>
      </div>
    </div></main>
    <section class="dock">
      ${myHandView(ctrl)}
      ${seatNotice(ctrl)}
      ${actionsView(ctrl)}
    </section>
    ${resultsView(ctrl)}
    ${hostPanel(ctrl)}
    ${lastHandsView(ctrl)}
    </div>
    ${log ? part(handLog, ctrl, (m) => m.handLogView(ctrl)) : null}
    ${chatView(ctrl)}
    </div>
    ${ctrl.ui.message ? html`<div class="toast" role=${ctrl.settings.screenReader ? null : 'status'}>${ctrl.ui.message}</div>` : null}
    ${requestsView(ctrl)}
    ${ctrl.ui.dialog ? part(dialogs, ctrl, (m) => m.dialogsView(ctrl)) : null}
    ${ctrl.replay ? part(replay, ctrl, (m) => m.replayPanel(ctrl)) : null}
  </div>`;
}

// Two boards (or two runs) stand taller: the bets sit further apart (app.css). A class rather
// than a `:has()` rule, which the browser would test again at each change inside the felt.
export function tall(h, boards) {
  return h ? h.boards.length > 1 || h.boards[0].length > 1 : boards > 1;
}

function topbar(ctrl) {
  const s = ctrl.state;
  const c = s.table.config;
  const h = s.hand;
  const seated = s.you.seat != null;
  const seat = seated ? s.seats[s.you.seat] : null;
  return html`<header class="topbar">
    ${screenReaderToggle(ctrl)}
    <a class="home-link" href="/" aria-label="Home">♠</a>
    <div class="title">
      <strong class="table-name">${c.name}</strong>
      <span class="sub">${s.table.labels.game} · ${s.table.labels.stakes}${h ? html` · <span class="hand-no">Hand #${h.number}</span>${dealMark(ctrl, h)}` : null}
      ${s.table.paused ? html` · <span class="paused">paused</span>` : null}</span>
    </div>
    ${c.tournament ? part(tournament, ctrl, (m) => m.tournamentBar(ctrl.tournament)) : null}
    <nav class=${`menu ${ctrl.ui.menuOpen ? 'open' : ''}`}>
      <button type="button" class="btn ghost icon menu-toggle" aria-label="Menu" aria-expanded=${!!ctrl.ui.menuOpen}
        onClick=${() => { ctrl.ui.menuOpen = !ctrl.ui.menuOpen; ctrl.redraw(); }}>☰</button>
      <div class="menu-items" onClick=${() => { ctrl.ui.menuOpen = false; }}>
        <button type="button" class="btn ghost" data-cmd="invite" onClick=${() => { ctrl.ui.dialog = 'invite'; ctrl.redraw(); }}>Invite</button>
        ${seated && !c.tournament ? html`
          <button type="button" class="btn ghost" data-cmd="top-up" onClick=${() => ctrl.openTopUp()}>Top up</button>
          ${seat && seat.status === 'sitting_out'
            ? html`<button type="button" class="btn ghost" data-cmd="sit-in" onClick=${() => ctrl.command('sit_in')}>Sit in</button>`
            : html`<button type="button" class="btn ghost" data-cmd="sit-out" onClick=${() => ctrl.command('sit_out')}>Sit out</button>`}
          <button type="button" class="btn ghost" data-cmd="leave" onClick=${() => ctrl.command('leave')}>Leave</button>` : null}
        <button type="button" class="btn ghost" data-cmd="ledger" onClick=${() => ctrl.openLedger()}>Ledger</button>
        <button type="button" class="btn ghost" data-cmd="log" aria-pressed=${!!ctrl.settings.logOpen}
          onClick=${() => ctrl.setSetting('logOpen', !ctrl.settings.logOpen)}>Log</button>
        <a class="btn ghost" data-cmd="my-hands" href="/hands" target="_blank" rel="noopener">My hands</a>
        <button type="button" class="btn ghost" data-cmd="settings" aria-label="Settings" onClick=${() => { ctrl.ui.dialog = 'settings'; ctrl.redraw(); }}>⚙ Settings</button>
      </div>
    </nav>
  </header>`;
}

// The host's panel, folded to its button until opened (then views/host.js draws it, once
// fetched: the button stays until then).
function hostPanel(ctrl) {
  if (!ctrl.state.you.host) return null;
  const open = ctrl.ui.hostOpen && host.now(ctrl.redraw);
  return open ? open.hostView(ctrl) : html`<section class="host-panel folded" aria-label="Host">
    <button type="button" class="btn" aria-expanded="false" onClick=${() => { ctrl.ui.hostOpen = true; ctrl.redraw(); }}>Host controls</button>
  </section>`;
}

// The seats asked of the host, over the table.
function requestsView(ctrl) {
  const s = ctrl.state;
  if (!s.you.host || !s.requests.length) return null;
  return html`<aside class="requests" aria-label="Seat requests">
    ${s.requests.map((r) => html`<div class="request" key=${r.player_id}>
      <span><b>${r.name}</b> asks for seat ${r.seat + 1} with ${r.buy_in}</span>
      <button type="button" class="btn small primary" onClick=${() => ctrl.command('approve', { player_id: r.player_id })}>Approve</button>
      <button type="button" class="btn small" onClick=${() => ctrl.command('refuse', { player_id: r.player_id })}>Refuse</button>
    </div>`)}
  </aside>`;
}

// The switch, first in the page's focus order (shown when focused, like a skip link).
function screenReaderToggle(ctrl) {
  const on = !!ctrl.settings.screenReader;
  return html`<button type="button" class=${`btn small sr-toggle ${on ? 'on' : ''}`} aria-pressed=${on}
    onClick=${() => ctrl.setScreenReader(!on)}>Screen reader mode</button>`;
}

function banner(ctrl) {
  // The first connection (the table drawn from the page's own snapshot meanwhile): no banner.
  if (ctrl.conn === 'open' || ctrl.conn === 'connecting' && (!ctrl.state || !ctrl.socket.opened)) return null;
  if (ctrl.conn === 'closed' && ctrl.state && ctrl.state.table.config.tournament) return part(tournament, ctrl, (m) => m.tournamentClosed(ctrl.tournament));
  if (ctrl.conn === 'closed') return html`<div class="banner" role="alert" data-conn="closed">${ctrl.state ? 'The host closed this table.' : 'This table has closed.'} Its hands and ledger stay readable. <a href="/">Home</a></div>`;
  if (ctrl.conn === 'gone') return html`<div class="banner error" role="alert">This table does not exist. <a href="/">Home</a></div>`;
  if (ctrl.conn === 'connecting') return html`<div class="banner" role="status">Reconnecting…</div>`;
  const wait = Math.max(0, Math.ceil((ctrl.socket.retryAt - Date.now()) / 1000));
  return html`<div class="banner offline" role="alert" data-conn="offline">
    Connection lost. Reconnecting${wait ? ` in ${wait} s` : '…'}
    <button type="button" class="btn small" onClick=${() => ctrl.socket.reconnectNow()}>Retry now</button>
  </div>`;
}

// Seats are placed around an ellipse by the style sheet (app.css, "seats around the oval"):
// the page names each seat's place counted from the viewer's own, at the bottom, so the server's
// first paint (app/api/first_paint.py) and this view place them the same way.
export function placeOf(s, seat) {
  const n = s.seats.length;
  const base = s.you.seat != null ? s.you.seat : 0;
  return (seat - base + n) % n;
}

export function seatView(ctrl, i, seat) {
  const s = ctrl.state;
  const h = s.hand;
  const k = placeOf(s, i);
  if (!seat) {
    // a replay is not a table to sit at; a tournament's director seats its players
    const canSit = s.you.seat == null && !s.you.request && !s.replay && !s.table.config.tournament;
    return html`<div class="seat empty" data-seat=${i} data-k=${k}>
      ${canSit
        ? html`<button type="button" class="sit-btn" data-sit=${i} aria-label=${`Sit in seat ${i + 1}`} onClick=${() => ctrl.openSit(i)}>Sit here</button>`
        : s.you.request && s.you.request.seat === i
          ? html`<span class="open asked" data-asked=${i}>${notice('request_seat')}</span>`
          : html`<span class="open">Open</span>`}
    </div>`;
  }
  const p = h && h.players[i] && h.players[i];
  const dealtIn = p && h.order.includes(i);
  const acting = h && !h.ended && h.actor === i;
  const mine = i === s.you.seat;
  const won = h && h.awards.filter((a) => a.seat === i).reduce((sum, a) => sum + a.amount, 0);
  const stack = p && !h.ended ? p.stack : seat.stack;
  const picker = reactPicker(ctrl, i);
  const classes = ['seat', mine ? 'mine' : '', acting ? 'acting' : '', p && p.folded ? 'folded' : '',
    won ? 'winner' : '', seat.away ? 'away' : '', picker ? 'picking' : ''].join(' ');
  // All in: said once (not when the last action says it already) and only during the hand.
  const last = p && p.last && h.ended ? p.last.replace(' · all in', '') : p && p.last;
  const marks = seatMarks(seat, dealtIn && !h.ended,
    p && p.all_in && !p.folded && !h.ended && !(last && last.includes('all in')));
  return html`<div class=${classes} data-seat=${i} data-player=${seat.player_id} data-k=${k} role="group" aria-label=${seatLabel(s, i)}>
    <div class="hole">${dealtIn && (!mine || s.replay) ? otherCards(s, p) : null}</div>
    <div class="plate">
      ${acting ? clockRing(h) : null}
      <span class="name">${seat.name}</span>
      <span class="stack">${stack}</span>
      ${reactToggle(ctrl, i)}
      ${acting && h.deadline ? html`<span class="clock">${Math.max(0, Math.ceil((h.deadline - performance.now()) / 1000))}s${h.inBank ? ' bank' : ''}</span>` : null}
      ${acting ? stoppedClock(h) : null}
    </div>
    ${won ? html`<span class="won">+${won}</span>` // the win says more than the last action
      : last ? html`<span class=${`last act-${last.split(' ')[0].toLowerCase()}`}>${last}</span>` : null}
    ${marks.length ? html`<span class="marks">${marks.join(' · ')}</span>` : null}
    ${h && h.button === i ? html`<span class="dealer" title="Button" aria-hidden="true">D</span>` : null}
    ${reactionBubble(ctrl, i, seat)}
    ${picker}
  </div>`;
}

function otherCards(s, p) {
  // A mucked hand with its cards is the viewer's own (in a replay of their hand): dimmed.
  if (p.mucked && p.cards && !(p.shownCards && p.shownCards.length)) {
    return html`<div class="cards shown mucked" data-mucked="1" title=${WORDS.notes.mucked}>${p.cards.map((c) => Card({ card: c, size: 'sm' }))}</div>`;
  }
  if (p.folded || (p.mucked && !(p.shownCards && p.shownCards.length))) return null;
  if (p.cards && !p.mucked) {
    const win = winningCards(s.hand);
    return html`<div class="cards shown">${p.cards.map((c) => Card({ card: c, size: 'sm', mark: win.get(c) || '' }))}</div>`;
  }
  if (p.shownCards && p.shownCards.length) { // some shown by choice (after the hand, or at the showdown instead of mucking), the rest face down
    const n = holeCount(s.table.config);
    return html`<div class="cards shown partly" data-shown-cards=${p.shownCards.join(' ')}>
      ${p.shownCards.map((c) => Card({ card: c, size: 'sm' }))}
      ${Array.from({ length: Math.max(0, n - p.shownCards.length) }, () => CardBack({ size: 'xs' }))}</div>`;
  }
  const n = holeCount(s.table.config);
  return html`<div class="cards backs">${Array.from({ length: n }, () => CardBack({ size: 'xs' }))}</div>`;
}

// The host's pause stops the clock: what is left, with a pause mark, not counting down (no
// ring: it would say nothing more). It counts again from there when the table resumes.
function stoppedClock(h) {
  if (!h.stopped || h.timeout == null) return null;
  const left = Math.max(0, Math.ceil(h.timeout));
  return html`<span class="clock stopped" data-clock-stopped=${left} role="timer"
    title="Clock stopped: the table is paused" aria-label=${`${left} seconds${h.inBank ? ' of time bank' : ''} left, clock stopped`}>
    <span class="pause-mark" aria-hidden="true"></span>${left}s${h.inBank ? ' bank' : ''}</span>`;
}

// The ring drains in steps, at each redraw (every second while a clock runs), rather than as a
// CSS animation: that repainted the table sixty times a second for the whole turn, and each
// message then waited behind those frames.
function clockRing(h) {
  if (h.timeout == null || !h.deadline) return null;
  const left = Math.max(0, Math.min(1, (h.deadline - performance.now()) / (h.timeout * 1000 || 1)));
  return html`<svg key=${`${h.id}:${h.counter}:${h.inBank}`} class=${`ring ${h.inBank ? 'bank' : ''}`}
    viewBox="0 0 100 100" preserveAspectRatio="none" style=${{ '--used': (100 * (1 - left)).toFixed(1) }} aria-hidden="true">
    <rect x="3" y="3" width="94" height="94" rx="22" pathLength="100"></rect>
  </svg>`;
}

// Chips in flight (js/cues.js): a bet sliding to the pot, the pot sliding to a winner; drawn
// over the table for one short CSS animation (app.css, "chips that move").
function flightsView(ctrl) {
  const flights = ctrl.cues ? ctrl.cues.flights : [];
  if (!flights.length) return null;
  ctrl.cues.drawn(); // each lands counted from its first frame
  return flights.map((f) => html`<div key=${f.id} class=${`fly ${f.kind}`} data-k=${placeOf(ctrl.state, f.seat)} aria-hidden="true">
    <span class="flown"><span class="chip"></span>${f.amount}</span>
  </div>`);
}

export function betView(ctrl, p) {
  if (!p.bet) return null;
  return html`<div class="bet" data-bet-seat=${p.seat} data-k=${placeOf(ctrl.state, p.seat)}>
    <span class="chip"></span>${p.bet}
  </div>`;
}

// The cards of each award, as a mark: 'win' for a high (or whole) pot, 'win-low' for a low.
function winningCards(h, run = null, board = null) {
  const marks = new Map();
  if (!h) return marks;
  h.awards.forEach((a) => {
    if ((run == null || a.run === run) && (board == null || a.board === board)) {
      a.cards.forEach((c) => { if (marks.get(c) !== 'win') marks.set(c, a.half === 'low' ? 'win-low' : 'win'); });
    }
  });
  return marks;
}

function readerCards(h, run, board) {
  const set = new Set();
  if (!h || !h.reader || h.awards.length) return set;
  const r = h.reader.find((e) => e.run === run && e.board === board);
  if (r) r.high.cards.forEach((c) => set.add(c));
  return set;
}

export function boardsView(ctrl, h) {
  const c = ctrl.state.table.config;
  const boards = h ? h.boards : [Array.from({ length: c.boards }, () => [])];
  const many = boards.length > 1 || boards[0].length > 1;
  return html`<div class=${`boards runs-${boards.length} boards-${boards[0].length}`}>
    ${boards.map((run, r) => run.map((board, b) => {
      const win = winningCards(h, r, b);
      const mine = readerCards(h, r, b);
      // after a hand over before the river, the cards that would have come (never played)
      const rabbit = (h && h.rabbit && r === 0 && h.rabbit.boards[b]) || [];
      const label = `${boards.length > 1 ? `Run ${r + 1}, ` : ''}${run.length > 1 ? `board ${b + 1}` : 'board'}`;
      return html`<div class="board" data-run=${r} data-board=${b} role="group" aria-label=${label[0].toUpperCase() + label.slice(1)}>
        ${many ? html`<span class="board-label">${boards.length > 1 ? `Run ${r + 1}` : ''}${boards.length > 1 && run.length > 1 ? ' · ' : ''}${run.length > 1 ? `Board ${b + 1}` : ''}</span>` : null}
        <div class="cards">
          ${Array.from({ length: 5 }, (_, k) => (board[k]
            ? Card({ card: board[k], size: 'md', mark: win.get(board[k]) || (mine.has(board[k]) ? 'used' : '') })
            : rabbit[k - board.length] ? Card({ card: rabbit[k - board.length], size: 'md', mark: 'rabbit' })
              : CardSlot({ size: 'md' })))}
        </div>
      </div>`;
    }))}
    ${h && h.rabbit ? html`<span class="rabbit-note" data-rabbit="1">Rabbit hunt · not played${h.rabbit.name ? ` · asked by ${h.rabbit.name}` : ''}</span>` : null}
  </div>`;
}

export function potView(h) {
  if (!h) return html`<div class="pot idle">Waiting for players</div>`;
  if (h.ended) return null;
  const total = potTotal(h);
  const pots = h.pots.filter((p) => p.amount > 0);
  return html`<div class="pot">
    <span class="pot-total" data-pot=${total}>Pot ${total}</span>
    ${pots.length > 1 ? html`<span class="side-pots">${pots.map((p, i) => html`<span>${i === 0 ? 'Main' : `Side ${i}`} ${p.amount}</span>`)}</span>` : null}
  </div>`;
}

function myHandView(ctrl) {
  const s = ctrl.state;
  const h = s.hand;
  if (s.you.seat == null && s.you.request) return null; // the dock says the request waits
  if (s.you.seat == null) {
    // A tournament seats its players itself: nobody picks a seat there.
    const over = ctrl.tournament && ctrl.tournament.state && ctrl.tournament.state.status === 'finished';
    const note = over ? 'The tournament is over.' : s.table.config.tournament ? 'A tournament table: its players are seated by the tournament.'
      : s.seats.some((x) => !x) ? 'Pick an open seat to play.' : 'The table is full.';
    return html`<div class="my-hand spectator"><p>You are watching. ${note}</p></div>`;
  }
  const p = h && h.players[s.you.seat];
  if (!p || !p.cards) {
    const seat = s.seats[s.you.seat];
    const note = seat && seat.timed_out && seat.note ? seat.note : p && p.folded ? WORDS.notes.folded : seat && seat.note ? seat.note
      : h && !h.ended ? WORDS.notes.not_in_hand : WORDS.notes.next_hand;
    return html`<div class="my-hand empty"><p class="note">${note}</p></div>`;
  }
  const reader = h.reader && !h.ended ? h.reader : null;
  const used = new Set();
  const win = winningCards(h);
  if (reader && reader[0]) reader[0].high.hole_used.forEach((c) => used.add(c));
  const many = reader && reader.length > 1;
  if (p.mucked) { // mucked at the showdown: still yours to see, dimmed and said
    return html`<div class="my-hand mucked" data-mucked="1">
      <div class="cards mine" data-mine="1" role="group" aria-label="Your cards, mucked">${p.cards.map((c) => Card({ card: c, size: 'lg' }))}</div>
      <p class="note">${WORDS.notes.mucked}</p>
    </div>`;
  }
  return html`<div class="my-hand">
    <div class="cards mine" data-mine="1" role="group" aria-label="Your cards">${p.cards.map((c) => Card({ card: c, size: 'lg', mark: win.get(c) || (used.has(c) ? 'used' : '') }))}</div>
    ${reader ? html`<div class="reader" aria-live=${ctrl.settings && ctrl.settings.screenReader ? 'off' : 'polite'}>
      ${reader.map((r) => html`<div class="reading" data-run=${r.run} data-board=${r.board}>
        ${many ? html`<span class="where">${h.boards.length > 1 ? `Run ${r.run + 1} ` : ''}${h.boards[0].length > 1 ? `Board ${r.board + 1}` : ''}</span>` : null}
        <span class="high" data-hand=${r.high.name}>${r.high.name}</span>
        ${'low' in r ? html`<span class="low">${r.low ? r.low.name : 'No low'}</span>` : null}
      </div>`)}
    </div>` : null}
  </div>`;
}

export function resultsView(ctrl) {
  const s = ctrl.state;
  const h = s.hand && s.hand.awards.length ? s.hand : s.lastHand;
  if (!h || !h.awards.length) return null;
  const name = (seat) => (h.names && h.names[seat]) || (s.seats[seat] ? s.seats[seat].name : `Seat ${seat + 1}`);
  // By pot (main, side pot 1, 2…), then by run and board within it.
  const pots = new Map();
  h.awards.forEach((a) => {
    const pot = a.pot || 0;
    if (!pots.has(pot)) pots.set(pot, new Map());
    const key = `${a.run}:${a.board}`;
    const groups = pots.get(pot);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  });
  const named = pots.size > 1 || !pots.has(0);
  const runs = Math.max(...h.awards.map((a) => a.run)) + 1;
  const boards = Math.max(...h.awards.map((a) => a.board)) + 1;
  const current = h === s.hand;
  return html`<section class=${`results ${current ? 'current' : 'previous'}`} aria-live=${ctrl.settings && ctrl.settings.screenReader ? 'off' : 'polite'}>
    <h2>${current ? `Hand #${h.number}` : `Last hand (#${h.number})`}</h2>
    ${[...pots.entries()].sort((x, y) => x[0] - y[0]).map(([pot, groups]) => html`<div class="pot-result" data-pot-index=${pot}>
      ${named ? html`<h3 class="pot-name">${pot === 0 ? 'Main pot' : `Side pot ${pot}`}${' '}<span class="pot-amount">${[...groups.values()].flat().reduce((sum, a) => sum + a.amount, 0)}</span></h3>` : null}
      ${[...groups.entries()].map(([key, list]) => {
        const [run, board] = key.split(':').map(Number);
        const winners = new Set(list.map((a) => a.seat));
        const scoop = winners.size === 1 && list.some((a) => a.half === 'high') && list.some((a) => a.half === 'low');
        return html`<div class="award-group">
          ${runs > 1 || boards > 1 ? html`<span class="where">${runs > 1 ? `Run ${run + 1}` : ''}${runs > 1 && boards > 1 ? ' · ' : ''}${boards > 1 ? `Board ${board + 1}` : ''}</span>` : null}
          ${scoop ? html`<span class="scoop">${name(list[0].seat)} scoops</span>` : null}
          ${list.map((a) => html`<div class="award" data-award-seat=${a.seat} data-half=${a.half} data-pot=${a.pot || 0}>
            ${HALF[a.half] ? html`<span class=${`half ${a.half}`}>${HALF[a.half]}</span>` : null}
            <span class="who">${name(a.seat)}</span>
            <span class="amount">+${a.amount}</span>
            ${a.hand_name ? html`<span class="hand-name">${a.hand_name}</span>` : null}
            ${a.cards.length ? html`<span class="cards tiny">${a.cards.map((c) => Card({ card: c, size: 'xs' }))}</span>` : null}
          </div>`)}
        </div>`;
      })}
    </div>`)}
  </section>`;
}
