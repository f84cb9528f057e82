// A tournament's pages, from GET /api/tournaments/{code} (docs/protocol.md 2.2), polled each
// second: the big-screen clock (/tournaments/{code}/clock: level, blinds, the time to the next
// level or break counting down, the next level, players left, average stack, payouts) and
// the standings page (/tournaments/{code}: register, start, the places and prizes).
import { html } from '../html.js';

const POLL_MS = 1000;

// Its own style sheet, loaded with the first tournament page (none of the table's pages needs it).
function useStyles() {
  if (document.getElementById('tournament-css')) return;
  const link = document.createElement('link');
  link.id = 'tournament-css';
  link.rel = 'stylesheet';
  link.href = new URL('../../tournament.css', import.meta.url).href;
  document.head.append(link);
}

export class TournamentCtrl {
  constructor(code, me, redraw) {
    this.code = code;
    this.me = me;
    this.redraw = redraw;
    this.state = null;
    this.fetchedAt = 0;
    this.error = null;
    this.message = null;
  }

  async load() {
    try {
      const r = await fetch(`/api/tournaments/${encodeURIComponent(this.code)}`, { credentials: 'same-origin' });
      if (!r.ok) throw new Error(r.status === 404 ? 'No such tournament.' : `HTTP ${r.status}`);
      this.state = await r.json();
      this.fetchedAt = performance.now();
      this.error = null;
      if (this.state.status === 'running' || this.state.status === 'paused') {
        const d = await fetch(`/api/tournaments/${encodeURIComponent(this.code)}/deal`, { credentials: 'same-origin' });
        this.deal = d.ok ? (await d.json()).players : [];
      } else this.deal = [];
    } catch (e) {
      this.error = e.message;
    }
    this.redraw();
  }

  start() {
    useStyles();
    this.load();
    setInterval(() => this.load(), POLL_MS);
    setInterval(() => this.redraw(), 250); // the countdown between polls
  }

  // Seconds left in the level (or break), counted down locally since the last poll.
  remaining() {
    const s = this.state;
    if (!s || s.remaining == null) return null;
    if (s.status !== 'running') return s.remaining;
    return Math.max(0, s.remaining - (performance.now() - this.fetchedAt) / 1000);
  }

  async act(action) {
    const r = await fetch(`/api/tournaments/${encodeURIComponent(this.code)}/${action}`, {
      method: 'POST', credentials: 'same-origin',
    });
    let data = null;
    try { data = await r.json(); } catch { data = null; }
    this.message = r.ok ? null : (data && data.detail && data.detail.message) || `HTTP ${r.status}`;
    await this.load();
  }
}

export function clockText(seconds) {
  if (seconds == null) return '—';
  const s = Math.ceil(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const blinds = (b) => `${b.small_blind} / ${b.big_blind}`
  + (b.ante ? ` ante ${b.ante}` : '') + (b.big_blind_ante ? ` (big blind ante ${b.big_blind_ante})` : '');

export function clockView(ctrl) {
  const s = ctrl.state;
  if (!s) return html`<main class="tournament-clock"><p>${ctrl.error || 'Loading…'}</p></main>`;
  return html`<main class="tournament-clock">
    <h1>${s.name}</h1>
    <p data-status=${s.status}>${s.status === 'paused' ? 'Paused' : s.status === 'finished' ? 'Finished' : s.status === 'registering' ? 'Registering' : s.on_break ? 'Break' : `Level ${s.level}`}</p>
    <p data-level=${s.level} class="level-line">Level <span class="level">${s.level}</span>: <span class="blinds">${blinds(s.blinds)}</span></p>
    <p class="countdown" role="timer" aria-label=${s.on_break ? 'Time to the end of the break' : 'Time to the next level'}>${clockText(ctrl.remaining())}</p>
    <p class="next">Next: ${s.next ? blinds(s.next) : 'the last level'}</p>
    <p><span class="players-left">${s.players_left}</span> players left of ${s.entries} · average stack <span class="average">${s.average_stack}</span></p>
    ${s.payouts.length ? html`<ol class="payouts" aria-label="Payouts">${s.payouts.map((p) => html`<li>${p}</li>`)}</ol>` : null}
  </main>`;
}

export function standingsView(ctrl) {
  const s = ctrl.state;
  if (!s) return html`<main class="tournament"><p>${ctrl.error || 'Loading…'}</p></main>`;
  const me = ctrl.me && ctrl.me.player_id;
  const registered = s.registered.some((r) => r.player_id === me);
  return html`<main class="tournament">
    <h1>${s.name}</h1>
    <p data-status=${s.status}>${s.status} · level ${s.level} · ${s.players_left} players left</p>
    <p><a href=${`/tournaments/${encodeURIComponent(s.code)}/clock`}>Clock</a>
      · <a href=${`/api/tournaments/${encodeURIComponent(s.code)}/results.csv`} download>Results (CSV)</a></p>
    ${ctrl.message ? html`<p role="alert">${ctrl.message}</p>` : null}
    ${me && s.status === 'registering' ? html`<p>
      ${registered
        ? html`<button type="button" class="btn" data-cmd="unregister" onClick=${() => ctrl.act('unregister')}>Unregister</button>`
        : html`<button type="button" class="btn" data-cmd="register" onClick=${() => ctrl.act('register')}>Register</button>`}
      ${s.host === me ? html`<button type="button" class="btn" data-cmd="start" onClick=${() => ctrl.act('start')}>Start</button>` : null}
    </p>` : null}
    ${ctrl.deal && ctrl.deal.length ? html`<h2>A deal</h2>
      <table class="deal">
        <thead><tr><th scope="col">Player</th><th scope="col">Stack</th><th scope="col">Chip chop</th><th scope="col">ICM</th></tr></thead>
        <tbody>${ctrl.deal.map((d) => html`<tr><th scope="row">${d.name}</th><td>${d.stack}</td><td>${d.chip_chop}</td><td>${d.icm}</td></tr>`)}</tbody>
      </table>
      ${ctrl.deal.some((d) => d.player_id === me) ? html`<p>
        <button type="button" class="btn" data-cmd="chop-icm" onClick=${() => ctrl.act('chop_icm')}>Ask for an ICM deal</button>
        <button type="button" class="btn" data-cmd="chop-chips" onClick=${() => ctrl.act('chop_chips')}>Ask for a chip chop</button>
        (applied when everyone left asks for the same)</p>` : null}` : null}
    <h2>Standings</h2>
    <table class="standings">
      <thead><tr><th scope="col">Place</th><th scope="col">Player</th><th scope="col">Prize</th></tr></thead>
      <tbody>${s.standings.map((r) => html`<tr data-place=${r.place}><td>${r.place}</td><th scope="row">${r.name}</th><td>${r.prize}</td></tr>`)}</tbody>
    </table>
    <h2>Players</h2>
    <ul class="registered">${s.registered.map((r) => html`<li>${r.name}</li>`)}</ul>
  </main>`;
}
