// The hand replayer (`/h/{number}`): the table as it was at each step of one finished hand.
// The hand's `steps` (GET /api/hands/{number}, already redacted for this viewer by the server)
// are the live protocol's events, fed through the live table's own reducer (table-state.js);
// the page draws with the table's own views. Nothing here knows a rule.

import { fromSnapshot, applyEvent } from './table-state.js';

export const SPEEDS = [0.5, 1, 2, 4]; // steps per second

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
    type: 'hand_started', number: record.number, button: record.button, bomb_pot: record.bomb_pot,
    straddle: record.straddle, seats: order.map((x) => x.seat), stacks: order.map((x) => x.stack),
  });
  return state;
}

export class ReplayCtrl {
  constructor(number, code, redraw) {
    this.number = number;
    this.code = code; // the table's invite code, when the link carries it (spectators)
    this.redraw = redraw;
    this.record = null;
    this.error = null;
    this.step = 0; // how many steps are applied
    this.playing = false;
    this.speed = 1;
    this.timer = 0;
    this.state = null;
    this.ui = {};
    this.conn = 'open';
    this.copied = false;
  }

  query() { return this.code ? `?code=${encodeURIComponent(this.code)}` : ''; }

  async load() {
    try {
      const res = await fetch(`/api/hands/${this.number}${this.query()}`, { credentials: 'same-origin' });
      const data = await res.json().catch(() => null);
      if (!res.ok) throw new Error((data && data.detail && data.detail.message) || `HTTP ${res.status}`);
      this.record = data;
      this.go(data.steps.length); // open on the result
    } catch (e) {
      this.error = e.message;
    }
    this.redraw();
  }

  get last() { return this.record ? this.record.steps.length : 0; }

  // The state after `k` steps, rebuilt from the start (a hand is a few hundred steps at most).
  go(k) {
    if (!this.record) return;
    this.step = Math.max(0, Math.min(this.last, k));
    const state = start(this.record);
    this.record.steps.slice(0, this.step).forEach((ev) => applyEvent(state, ev));
    const h = state.hand;
    if (h) { h.deadline = null; h.timeout = null; } // no clock in a replay
    this.state = state;
    if (this.step >= this.last) this.pause();
    this.redraw();
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

  key(e) {
    if (e.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(e.target.tagName)) return;
    const moves = { ArrowRight: () => { this.pause(); this.forward(); }, ArrowLeft: () => this.back(),
      Home: () => { this.pause(); this.go(0); }, End: () => this.go(this.last),
      ' ': () => (this.playing ? this.pause() : this.play()) };
    const move = moves[e.key];
    if (move) { e.preventDefault(); move(); }
  }

  async copyLink() {
    try { await navigator.clipboard.writeText(location.href); this.copied = true; } catch { this.copied = false; }
    this.redraw();
  }
}
