// Statistics (the server computes them: docs/hand-history.md has the definitions), in the
// ledger for the session and on a player's page (`/players/{id}`) over every hand the viewer
// may review; and the session graph (views/graph.js).
import { html } from '../html.js';
import * as api from '../api.js';
import { GAMES } from '../format.js';

const COLUMNS = [
  ['hands', 'Hands', 'Hands played'],
  ['vpip', 'VPIP', 'Voluntarily put chips in before the flop (% of hands with a pre-flop decision)'],
  ['pfr', 'PFR', 'Raised before the flop'],
  ['three_bet', '3-bet', 'Re-raised a single raise before the flop'],
  ['cbet', 'C-bet', 'The pre-flop raiser bet the flop when checked to'],
  ['wtsd', 'WTSD', 'Went to showdown (% of hands that saw the flop)'],
  ['wsd', 'W$SD', 'Won chips at the showdown (% of showdowns)'],
  ['aggression', 'AF', 'Bets and raises per call after the flop'],
  ['net', 'Net', 'Chips won or lost in these hands'],
  ['all_in_adjusted_net', 'All-in adj.', 'The net with each all-in won in expectation'],
];
const RATES = new Set(['vpip', 'pfr', 'three_bet', 'cbet', 'wtsd', 'wsd']);
const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

function cell(key, value) {
  if (value == null) return '–';
  if (RATES.has(key)) return `${value}%`;
  if (key === 'net' || key === 'all_in_adjusted_net') return signed(Math.round(value * 100) / 100);
  return `${value}`;
}

function gameName(key) { return key === 'all' ? 'All games' : GAMES[key] ? GAMES[key].name : key; }

// One row per player (`figure(p)` their figures for the chosen game).
export function statsTable(players, figure, { link = true } = {}) {
  return html`<div class="ledger-scroll"><table class="ledger-table stats-table" aria-label="Statistics">
    <thead><tr><th scope="col">Player</th>${COLUMNS.map(([, label, title]) => html`<th scope="col" title=${title}>${label}</th>`)}</tr></thead>
    <tbody>${players.map((p) => {
      const f = figure(p);
      return html`<tr data-stats-player=${p.player_id}>
        <th scope="row">${link ? html`<a href=${`/players/${p.player_id}`} target="_blank" rel="noopener">${p.name}</a>` : p.name}</th>
        ${COLUMNS.map(([key]) => html`<td data-stat=${key} class=${key === 'net' && f && f.net ? (f.net > 0 ? 'up' : 'down') : ''}>${f ? cell(key, f[key]) : '–'}</td>`)}
      </tr>`;
    })}</tbody>
  </table></div>`;
}

// The game chooser: "All games" and each game played.
export function gameTabs(games, chosen, choose) {
  if (games.length < 2) return null;
  return html`<div class="row game-tabs" role="group" aria-label="Game">
    ${['all', ...games].map((g) => html`<button type="button" class=${`btn small ${g === chosen ? 'primary' : 'ghost'}`}
      aria-pressed=${g === chosen ? 'true' : 'false'} onClick=${() => choose(g)}>${gameName(g)}</button>`)}
  </div>`;
}

// The session's statistics in the ledger: loaded with it.
export function sessionStatsView(ctrl) {
  const st = ctrl.ui.stats;
  if (!st) return html`<p class="hint">Loading the statistics…</p>`;
  if (st.error) return html`<p class="hint" role="alert">${st.error}</p>`;
  const games = [...new Set(st.players.flatMap((p) => Object.keys(p.games)))].sort();
  const chosen = ctrl.ui.statsGame || 'all';
  const figure = (p) => (chosen === 'all' ? p.all : p.games[chosen]);
  return html`<section class="session-stats" data-stats="session">
    ${gameTabs(games, chosen, (g) => { ctrl.ui.statsGame = g; ctrl.redraw(); })}
    ${statsTable(st.players.filter((p) => figure(p)), figure)}
    ${st.indexing ? html`<p class="hint">Older hands are still being read.</p>` : null}
  </section>`;
}

// A player's page: their statistics over every hand the viewer may review.
export class PlayerCtrl {
  constructor(id, redraw) {
    this.id = id;
    this.redraw = redraw;
    this.data = null;
    this.error = null;
    this.game = 'all';
  }

  async start() {
    try { this.data = await api.playerStats(this.id); } catch (e) { this.error = e.message; }
    this.redraw();
  }
}

export function playerView(ctrl) {
  const d = ctrl.data;
  const body = () => {
    if (ctrl.error) return html`<div class="toast error" role="alert">${ctrl.error}</div>`;
    if (!d) return html`<p class="loading">Loading…</p>`;
    const games = Object.keys(d.games).sort();
    const rows = ['all', ...games].map((g) => ({ player_id: g, name: gameName(g), figures: g === 'all' ? d.all : d.games[g] }));
    return html`<section class="card-box" data-stats="player">
      <h2>By game</h2>
      ${statsTable(rows, (r) => r.figures, { link: false })}
      <p class="hint">Over the hands you may review: those you were dealt in, and those of the tables you host. No figure is made from a hand nobody showed.</p>
    </section>`;
  };
  return html`<div class="page player-page">
    <header class="topbar">
      <a class="home-link" href="/" aria-label="Home">♠</a>
      <div class="title"><strong class="table-name">${d ? d.name : 'Player'}</strong><span class="sub">Statistics</span></div>
      <a class="btn ghost" href="/hands">My hands</a>
    </header>
    ${body()}
  </div>`;
}
