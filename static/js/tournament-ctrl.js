// A tournament's state, polled: GET /api/tournaments/{code} (its standings and clock pages)
// or GET /api/tournaments/table/{table code} (a tournament table's bar), docs/protocol.md 2.2.
// Polling stops once the tournament is over (its last state stays on screen) or when there is
// no tournament to read (a cash table, a table whose tournament is gone).
//
// Moves: a player's table is in the state (`your_table`); when it is another than the page's,
// the page goes there (`follow`) with a short notice, kept in this tab for the next page.
import { leaveNotice } from './settings.js';

const POLL_MS = 1000;

export class TournamentCtrl {
  // `url`: where the state is read; `every`: the poll period; `active()`: whether to poll now
  // (a table page polls while its table is a tournament's); `onState(state, before)`: after
  // each read.
  constructor(code, me, redraw, { url = null, every = POLL_MS, active = () => true, onState = null } = {}) {
    this.code = code;
    this.me = me;
    this.redraw = redraw;
    this.url = url || `/api/tournaments/${encodeURIComponent(code)}`;
    this.every = every;
    this.active = active;
    this.onState = onState;
    this.state = null;
    this.fetchedAt = 0;
    this.error = null;
    this.message = null;
    this.tried = false;
    this.stopped = false;
    this.asked = 0; // polls sent, and the newest whose answer was applied
    this.applied = 0;
    this.timers = [];
    this.busy = false;
  }

  async load() {
    if (this.stopped || !this.active()) return;
    this.tried = true;
    // Polls overlap (the interval, the countdown at zero): only the newest asked is applied,
    // so an older "running" that answers after a newer "finished" cannot bring it back.
    const asked = ++this.asked;
    try {
      const r = await fetch(this.url, { credentials: 'same-origin' });
      if (asked < this.applied) return;
      this.applied = asked;
      if (r.status === 404) {
        this.error = 'No such tournament.';
        this.stop(); // nothing will appear here: no more asking
      } else if (!r.ok) {
        throw new Error(`HTTP ${r.status}`);
      } else {
        const before = this.state;
        const state = await r.json();
        if (asked < this.applied || this.stopped) return;
        this.state = state;
        this.fetchedAt = performance.now();
        this.error = null;
        if (this.state.status === 'finished') this.stop();
        if (this.onState) this.onState(this.state, before);
      }
    } catch (e) {
      this.error = e.message;
    }
    this.redraw();
  }

  start() {
    this.load();
    this.timers.push(setInterval(() => this.load(), this.every));
    // The countdown between polls; at zero, read the next level at once.
    this.timers.push(setInterval(() => {
      if (!this.state && !this.tried) this.load(); // the table's snapshot just arrived
      if (!this.state || this.state.status !== 'running') return;
      if (this.remaining() === 0 && performance.now() - this.fetchedAt > 500) this.load();
      this.redraw();
    }, 250));
  }

  stop() {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    this.timers = [];
  }

  // Seconds left in the level (or break), counted down locally since the last poll.
  remaining() {
    const s = this.state;
    if (!s || s.remaining == null) return null;
    if (s.status !== 'running') return s.remaining;
    return Math.max(0, s.remaining - (performance.now() - this.fetchedAt) / 1000);
  }

  async act(action) {
    this.busy = true;
    this.redraw();
    let ok = false;
    try {
      const r = await fetch(`/api/tournaments/${encodeURIComponent(this.code)}/${action}`, {
        method: 'POST', credentials: 'same-origin',
      });
      let data = null;
      try { data = await r.json(); } catch { data = null; }
      ok = r.ok;
      this.message = r.ok ? null : (data && data.detail && data.detail.message) || `HTTP ${r.status}`;
    } catch (e) {
      this.message = e.message;
    }
    this.busy = false;
    await this.load();
    return ok;
  }
}

// Go to the player's table, saying why on the page that opens there.
export function follow(table, notice) {
  leaveNotice(notice);
  location.assign(`/t/${encodeURIComponent(table)}`);
}

