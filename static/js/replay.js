// The hand replayer: the table as it was at each step of one finished hand, by its server
// number (`/h/{number}`) or by the number players say (`/t/{code}/h/{n}`), on its own page
// or in a panel over the live table. The hand's `steps` (already redacted for this viewer by
// the server) are the live protocol's events, fed through the live table's own reducer
// (table-state.js); the page draws with the table's own views. Nothing here knows a rule.
//
// A step is one action: the deal (blinds, antes, hole cards, Courchevel's first card) is one,
// then each action, board card, show, muck and award is one, with the bookkeeping events
// (rounds, bets gathered, whose turn) that come before it.

import { fromSnapshot, applyEvent } from './table-state.js';

export const SPEEDS = [0.5, 1, 2, 4]; // steps per second
const BREAKS = new Set(['acted', 'board', 'shown', 'mucked', 'award', 'runs', 'bet_returned']);
const DEAL = new Set(['forced_bet', 'hole_cards', 'round', 'turn']);
export const STREETS = ['preflop', 'flop', 'turn', 'river'];

// The end (exclusive) of each step in the record's events.
export function stepEnds(events) {
  const ends = [];
  let k = 0;
  while (k < events.length && (DEAL.has(events[k].type) || (events[k].type === 'board' && events[k].street === 'preflop'))) k += 1;
  if (k > 0) ends.push(k);
  for (let i = k; i < events.length; i += 1) {
    if (BREAKS.has(events[i].type)) ends.push(i + 1);
  }
  // What follows the last action (the hand's end) belongs to it.
  if (ends.length) ends[ends.length - 1] = events.length;
  else if (events.length) ends.push(events.length);
  return ends;
}

// The pot as each street began (the bets of the street before gathered), and in the end.
export function streetPots(record) {
  const out = [];
  let pot = 0;
  const seen = new Set();
  record.steps.forEach((ev) => {
    if (ev.type === 'pots') pot = ev.pots.reduce((sum, p) => sum + p.amount, 0);
    if (ev.type === 'board' && ev.run === 0 && ev.street !== 'preflop' && !seen.has(ev.street)) {
      seen.add(ev.street);
      out.push({ street: ev.street, pot });
    }
  });
  out.push({ street: 'total', pot: record.total_pot });
  return out;
}

// The table before the first step: the seats dealt in, with their names and starting stacks.
function start(record) {
  const seats = Array.from({ length: record.table.seats }, () => null);
  record.seats.forEach((s) => {
    seats[s.seat] = { seat: s.seat, player_id: `seat-${s.seat}`, name: s.name, stack: s.stack, status: 'playing', away: false };
  });
  const config = {
    name: record.table.name, game: record.game, betting: record.betting, boards: record.boards_per_run,
    seats: record.table.seats, small_blind: record.stakes.small_blind, big_blind: record.stakes.big_blind,
    ante: record.stakes.ante || 0,
  };
  const state = fromSnapshot({ table: { config, button: record.button }, seats, you: { seat: record.viewer.seat, player_id: null } });
  state.replay = true;
  // The record's steps begin after the deal's announcement: it is made from the record.
  const order = record.seats.slice().sort((a, b) => a.position - b.position);
  applyEvent(state, {
    type: 'hand_started', number: record.hand_at_table, button: record.button, bomb_pot: record.bomb_pot,
    straddle: record.straddle, seats: order.map((x) => x.seat), stacks: order.map((x) => x.stack),
  });
  return state;
}

export class ReplayCtrl {
  // `number`: the server's; or `at`: {code, n}, the table's code and its number there.
  constructor({ number = null, code = null, at = null }, redraw, { panel = false, onClose = null } = {}) {
    this.number = number;
    this.code = code || (at && at.code); // the table's invite code, when known (spectators)
    this.at = at;
    this.redraw = redraw;
    this.panel = panel; // drawn over the live table
    this.onClose = onClose;
    this.record = null;
    this.error = null;
    this.ends = [];
    this.step = 0; // how many steps are applied
    this.playing = false;
    this.speed = 1;
    this.timer = 0;
    this.state = null;
    this.ui = {};
    this.conn = 'open';
    this.copied = false;
    this.equity = null; // {streets, all_in} once computed
    this.equityNote = null;
  }

  query() { return this.code ? `?code=${encodeURIComponent(this.code)}` : ''; }

  url() {
    return this.at ? `/api/tables/${encodeURIComponent(this.at.code)}/hands/${this.at.n}`
      : `/api/hands/${this.number}${this.query()}`;
  }

  async load() {
    try {
      const res = await fetch(this.url(), { credentials: 'same-origin' });
      const data = await res.json().catch(() => null);
      if (!res.ok) throw new Error((data && data.detail && data.detail.message) || `HTTP ${res.status}`);
      // What was asked for once the hand was over (the rabbit hunt, cards shown by choice)
      // is drawn with the result, the last step, as the live table drew it: never played.
      data.steps = [...data.steps, ...(data.after || []).map((n) => (n.kind === 'rabbit'
        ? { type: 'rabbit', boards: n.boards, name: n.name }
        : { type: 'cards_shown', seat: n.seat, cards: n.cards, showdown: !!n.showdown }))];
      this.record = data;
      this.number = data.number;
      if (!this.code && data.table.code) this.code = data.table.code;
      this.ends = stepEnds(data.steps);
      this.go(this.last); // open on the result
      this.loadEquity();
    } catch (e) {
      this.error = e.message;
    }
    this.redraw();
  }

  // Each street's equity: computed once by the server's worker; `pending` meanwhile.
  async loadEquity(tries = 0) {
    if (this.closed) return;
    try {
      const res = await fetch(`/api/hands/${this.number}/equity${this.query()}`, { credentials: 'same-origin' });
      if (res.status === 200) {
        this.equity = await res.json();
        this.equityNote = null;
      } else if ((res.status === 202 || res.status === 503) && tries < 60) {
        this.equityNote = 'Working out the equities…';
        setTimeout(() => this.loadEquity(tries + 1), 1000);
      } else this.equityNote = 'No equities for this hand.';
    } catch { this.equityNote = 'No equities for this hand.'; }
    this.redraw();
  }

  get last() { return this.ends.length; }

  // The events applied after `k` steps.
  applied(k) { return k > 0 ? this.ends[k - 1] : 0; }

  // The state after `k` steps, rebuilt from the start (a hand is a few hundred events at most).
  go(k) {
    if (!this.record) return;
    this.step = Math.max(0, Math.min(this.last, k));
    const state = start(this.record);
    this.record.steps.slice(0, this.applied(this.step)).forEach((ev) => applyEvent(state, ev));
    const h = state.hand;
    if (h) { h.deadline = null; h.timeout = null; } // no clock in a replay
    this.state = state;
    if (this.step >= this.last) this.pause();
    this.redraw();
  }

  // The event that closes the step just applied.
  current() {
    if (this.step === 0) return null;
    const events = this.record.steps.slice(this.applied(this.step - 1), this.applied(this.step));
    return events.reverse().find((e) => BREAKS.has(e.type)) || { type: 'deal' };
  }

  // The street the table is on after the current step.
  street() {
    const h = this.state && this.state.hand;
    const board = h && h.boards[0] && h.boards[0][0];
    const n = board ? board.length : 0;
    if (n >= 5) return 'river';
    if (n === 4) return 'turn';
    return n >= 3 ? 'flop' : 'preflop';
  }

  forward() { this.go(this.step + 1); }

  back() { this.pause(); this.go(this.step - 1); }

  play() {
    if (this.step >= this.last) this.go(0);
    this.playing = true;
    this.tick();
  }

  tick() {
    clearTimeout(this.timer);
    if (!this.playing) return;
    this.timer = setTimeout(() => { this.forward(); this.tick(); }, 1000 / this.speed);
  }

  pause() { this.playing = false; clearTimeout(this.timer); this.redraw(); }

  setSpeed(speed) { this.speed = speed; this.tick(); this.redraw(); }

  close() {
    this.closed = true;
    this.pause();
    if (this.onClose) this.onClose();
  }

  key(e) {
    if (e.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(e.target.tagName)) return;
    const moves = { ArrowRight: () => { this.pause(); this.forward(); }, ArrowLeft: () => this.back(),
      Home: () => { this.pause(); this.go(0); }, End: () => this.go(this.last),
      ' ': () => (this.playing ? this.pause() : this.play()),
      Escape: () => { if (this.panel) this.close(); } };
    const move = moves[e.key];
    if (move) { e.preventDefault(); move(); }
  }

  // The link players share: by the table and the number there, when the code is known.
  link() {
    const r = this.record;
    if (r && this.code) return `${location.origin}/t/${encodeURIComponent(this.code)}/h/${r.hand_at_table}`;
    return `${location.origin}/h/${this.number}${this.query()}`;
  }

  async copyLink() {
    try { await navigator.clipboard.writeText(this.link()); this.copied = true; } catch { this.copied = false; }
    this.redraw();
  }
}
