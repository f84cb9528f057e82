// A tournament's pages, from GET /api/tournaments/{code} (docs/protocol.md 2.2), polled each
// second: the big-screen clock (/tournaments/{code}/clock: level, blinds, the time to the next
// level or break counting down, the next level, players left, average stack, payouts) and
// the standings page (/tournaments/{code}: register, start, the places and prizes). A
// tournament table's page shows the same clock in a bar above the felt, from
// GET /api/tournaments/table/{table code}.
import { html } from '../html.js';

const POLL_MS = 1000;

// Its own style sheet, loaded with the first tournament page or bar (cash tables need none).
function useStyles() {
  if (document.getElementById('tournament-css')) return;
  const link = document.createElement('link');
  link.id = 'tournament-css';
  link.rel = 'stylesheet';
  link.href = new URL('../../tournament.css', import.meta.url).href;
  document.head.append(link);
}

export class TournamentCtrl {
  // `url`: where the state is read (the tournament's, or its table's clock); `every`: the
  // poll period; `active()`: whether to poll now (a table page polls while its table is a
  // tournament's); `deal`: read the deal figures too (the standings page).
  constructor(code, me, redraw, { url = null, every = POLL_MS, active = () => true, deal = true } = {}) {
    this.code = code;
    this.me = me;
    this.redraw = redraw;
    this.url = url || `/api/tournaments/${encodeURIComponent(code)}`;
    this.every = every;
    this.active = active;
    this.withDeal = deal;
    this.state = null;
    this.fetchedAt = 0;
    this.error = null;
    this.message = null;
    this.deal = [];
    this.tried = false;
  }

  async load() {
    if (!this.active()) return;
    this.tried = true;
    useStyles();
    try {
      const r = await fetch(this.url, { credentials: 'same-origin' });
      if (!r.ok) {
        if (r.status === 404) this.state = null;
        throw new Error(r.status === 404 ? 'No such tournament.' : `HTTP ${r.status}`);
      }
      this.state = await r.json();
      this.fetchedAt = performance.now();
      this.error = null;
      if (this.withDeal && (this.state.status === 'running' || this.state.status === 'paused')) {
        const d = await fetch(`/api/tournaments/${encodeURIComponent(this.code)}/deal`, { credentials: 'same-origin' });
        this.deal = d.ok ? (await d.json()).players : [];
      } else this.deal = [];
    } catch (e) {
      this.error = e.message;
    }
    this.redraw();
  }

  start() {
    this.load();
    setInterval(() => this.load(), this.every);
    // The countdown between polls; at zero, read the next level at once.
    setInterval(() => {
      if (!this.state && !this.tried) this.load(); // the table's snapshot just arrived
      if (!this.state || this.state.status !== 'running') return;
      if (this.remaining() === 0 && performance.now() - this.fetchedAt > 500) this.load();
      this.redraw();
    }, 250);
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

const STATUS = { paused: 'Paused', finished: 'Finished', registering: 'Registering' };
const ORDINAL = ['1st', '2nd', '3rd'];
const place = (k) => ORDINAL[k] || `${k + 1}th`;

// The clock's facts, one copy for both screens that show them (the big clock, the table's bar).
function facts(ctrl) {
  const s = ctrl.state;
  return {
    status: html`<span class="t-status" data-status=${s.status}>${STATUS[s.status] || (s.on_break ? 'Break' : `Level ${s.level}`)}</span>`,
    level: html`<span data-level=${s.level} class="level-line">Level <span class="level">${s.level}</span>: <span class="blinds">${blinds(s.blinds)}</span></span>`,
    countdown: html`<span class="countdown" role="timer" aria-label=${s.on_break ? 'Time to the end of the break' : 'Time to the next level'}>${clockText(ctrl.remaining())}</span>`,
    next: html`<span class="next">Next: ${s.next ? blinds(s.next) : 'the last level'}</span>`,
    field: html`<span class="field-line"><span class="players-left">${s.players_left}</span> players left of ${s.entries} · average stack <span class="average">${s.average_stack}</span></span>`,
    payouts: s.payouts.length
      ? html`<ol class="payouts" aria-label="Payouts">${s.payouts.map((p, k) => html`<li><span class="place">${place(k)}</span> ${p}</li>`)}</ol>`
      : null,
  };
}

export function clockView(ctrl) {
  const s = ctrl.state;
  if (!s) return html`<main class="tournament-clock"><p>${ctrl.error || 'Loading…'}</p></main>`;
  const f = facts(ctrl);
  return html`<main class="tournament-clock">
    <h1>${s.name}</h1>
    <p>${f.status}</p>
    <p>${f.level}</p>
    <p>${f.countdown}</p>
    <p>${f.next}</p>
    <p>${f.field}</p>
    ${f.payouts}
  </main>`;
}

// A tournament table's bar above the felt: the same facts, on one or two lines. After a move
// the viewer's seat is at another table: a link takes them there.
export function tournamentBar(ctrl) {
  const s = ctrl && ctrl.state;
  if (!s) return null;
  const f = facts(ctrl);
  const here = location.pathname.split('/').pop();
  return html`<section class="tournament-bar" aria-label="Tournament clock">
    <div class="tb-main">${f.status} ${f.countdown}</div>
    <div class="tb-line">${f.level} <span class="tb-sep">·</span> ${f.next}</div>
    <div class="tb-line">${f.field}</div>
    <div class="tb-foot">${f.payouts}
      ${s.code ? html`<a href=${`/tournaments/${encodeURIComponent(s.code)}`}>Standings</a>` : null}</div>
    ${s.your_table && s.your_table !== here
      ? html`<a class="btn primary small moved" data-moved href=${`/t/${encodeURIComponent(s.your_table)}`}>You moved: go to your table</a>`
      : null}
  </section>`;
}

export function standingsView(ctrl) {
  const s = ctrl.state;
  if (!s) return html`<main class="tournament"><p>${ctrl.error || 'Loading…'}</p></main>`;
  const me = ctrl.me && ctrl.me.player_id;
  const registered = s.registered.some((r) => r.player_id === me);
  return html`<main class="tournament">
    <h1>${s.name}</h1>
    <p data-status=${s.status}>${s.status} · level ${s.level} · ${s.players_left} players left</p>
    ${s.your_table ? html`<p><a class="btn primary" data-cmd="my-table" href=${`/t/${encodeURIComponent(s.your_table)}`}>Go to your table</a></p>` : null}
    <p><a href=${`/tournaments/${encodeURIComponent(s.code)}/clock`}>Clock</a>
      · <a href=${`/api/tournaments/${encodeURIComponent(s.code)}/results.csv`} download>Results (CSV)</a></p>
    ${ctrl.message ? html`<p role="alert">${ctrl.message}</p>` : null}
    ${me && s.status === 'registering' ? html`<p>
      ${registered
        ? html`<button type="button" class="btn" data-cmd="unregister" onClick=${() => ctrl.act('unregister')}>Unregister</button>`
        : html`<button type="button" class="btn" data-cmd="register" onClick=${() => ctrl.act('register')}>Register</button>`}
      ${s.host === me ? html`<button type="button" class="btn" data-cmd="start" onClick=${() => ctrl.act('start')}>Start</button>` : null}
    </p>` : null}
    ${s.addon ? html`<p class="addon">Add-on: ${s.addon.chips} chips for ${s.addon.price}, once each, during level ${s.addon.level} or the break after it (${s.addon.taken} taken).
      ${s.addon.open && s.your_table && !s.registered.some((r) => r.player_id === me && r.addon)
        ? html`<button type="button" class="btn primary" data-cmd="addon" onClick=${() => ctrl.act('addon')}>Take the add-on</button>`
        : null}</p>` : null}
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
      <thead><tr><th scope="col">Place</th><th scope="col">Player</th><th scope="col">Prize</th>${s.addon ? html`<th scope="col">Add-on</th>` : null}</tr></thead>
      <tbody>${s.standings.map((r) => html`<tr data-place=${r.place}><td>${r.place}</td><th scope="row">${r.name}</th><td>${r.prize}</td>${s.addon ? html`<td>${r.addon ? 'yes' : 'no'}</td>` : null}</tr>`)}</tbody>
    </table>
    <h2>Players</h2>
    <ul class="registered">${s.registered.map((r) => html`<li>${r.name}${r.addon ? html` <span class="addon-mark">(add-on)</span>` : null}</li>`)}</ul>
  </main>`;
}
