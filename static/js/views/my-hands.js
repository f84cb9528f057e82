// "My hands" (`/hands`): every hand the viewer played, at every table (and those they
// watched, as a spectator or at the tables they host), newest first, a page at a time; filters by table, game,
// dates, position and result, and a hand number. Each row: the viewer's cards, the boards,
// the pot and their net; it opens the hand in the replayer.
import { html } from '../html.js';
import * as api from '../api.js';
import { GAMES } from '../format.js';
import { Card } from './cards.js';

const POSITIONS = ['BTN', 'CO', 'HJ', 'MP', 'UTG', 'BB', 'SB'];
const RESULTS = { won: 'Won', lost: 'Lost', showdown: 'Went to showdown', 'all-in': 'All in' };
const EMPTY = { table: '', game: '', since: '', until: '', position: '', result: '', number: '' };

export class MyHandsCtrl {
  constructor(me, redraw) {
    this.me = me;
    this.redraw = redraw;
    this.filter = { ...EMPTY };
    this.hands = [];
    this.next = null;
    this.busy = false;
    this.asked = 0; // requests made: each answer knows if a later one superseded it
    this.error = null;
    this.indexing = false;
    this.tables = [];
  }

  async start() {
    api.myTables().then((t) => { this.tables = t; this.redraw(); }).catch(() => {});
    await this.load();
  }

  async load(more = false) {
    // Only the last request's answer is shown: a filter changed while a page was on its
    // way (or an older page asked for, then a filter) must not show, or page on from, the
    // earlier one's hands.
    const asked = ++this.asked;
    this.busy = true;
    this.error = null;
    this.redraw();
    let page = null;
    let error = null;
    try {
      page = await api.myHands({ ...this.filter, cursor: more ? this.next : '', limit: 25 });
    } catch (e) {
      error = e;
    }
    if (asked !== this.asked) return;
    if (page) {
      this.hands = more ? [...this.hands, ...page.hands] : page.hands;
      this.next = page.next;
      this.indexing = page.indexing;
    } else {
      this.error = error.message;
      if (!more) this.hands = [];
    }
    this.busy = false;
    this.redraw();
  }

  set(key, value) { this.filter[key] = value; this.load(); }

  clear() { this.filter = { ...EMPTY }; this.load(); }
}

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

function select(ctrl, key, label, options) {
  return html`<label class="field">${label}
    <select name=${key} onChange=${(e) => ctrl.set(key, e.target.value)}>
      <option value="" selected=${ctrl.filter[key] === ''}>Any</option>
      ${options.map(([value, text]) => html`<option value=${value} selected=${ctrl.filter[key] === value}>${text}</option>`)}
    </select></label>`;
}

// A field typed into: the filter follows each key (a list that arrives mid-typing redraws the
// form, and must not put the filter's old value back under the player's fingers), and the
// list is asked for when the field is changed (Enter, leaving it, a date picked).
function typed(ctrl, key, label, attrs) {
  return html`<label class="field">${label} <input name=${key} ...${attrs} value=${ctrl.filter[key]}
    onInput=${(e) => { ctrl.filter[key] = e.target.value; }} onChange=${(e) => ctrl.set(key, e.target.value)} /></label>`;
}

function filtersView(ctrl) {
  const f = ctrl.filter;
  const tables = ctrl.tables.map((t) => [t.code, t.name]);
  if (f.table && !tables.some(([c]) => c === f.table)) tables.push([f.table, f.table]);
  const wide = window.innerWidth > 700; // on a phone the filters fold away until asked for
  return html`<form class="card-box filters" aria-label="Filters" onSubmit=${(e) => { e.preventDefault(); ctrl.load(); }}>
    <details open=${ctrl.filtersOpen == null ? wide : ctrl.filtersOpen}
      onToggle=${(e) => { ctrl.filtersOpen = e.target.open; }}><summary>Filters</summary>
    <div class="grid">
      ${select(ctrl, 'table', 'Table', tables)}
      ${select(ctrl, 'game', 'Game', Object.entries(GAMES).map(([k, g]) => [k, g.name]))}
      ${select(ctrl, 'position', 'Position', POSITIONS.map((p) => [p, p]))}
      ${select(ctrl, 'result', 'Result', Object.entries(RESULTS))}
      ${typed(ctrl, 'since', 'From', { type: 'date' })}
      ${typed(ctrl, 'until', 'To', { type: 'date' })}
      ${typed(ctrl, 'number', 'Hand number', { type: 'number', min: '1', inputmode: 'numeric', placeholder: 'e.g. 4' })}
    </div>
    <div class="row"><button type="button" class="btn ghost" data-cmd="clear-filters" onClick=${() => ctrl.clear()}>Clear filters</button></div>
    </details>
  </form>`;
}

function cards(list, size = 'xs') {
  return html`<span class="cards tiny">${list.map((c) => Card({ card: c, size }))}</span>`;
}

function row(h) {
  const href = `/t/${encodeURIComponent(h.code)}/h/${h.hand_at_table}`;
  const net = h.net == null ? null : h.net;
  return html`<li class="hand-row" data-my-hand=${h.number}>
    <a href=${href} class="hand-link" data-hand-at-table=${h.hand_at_table}>
      <span class="h-title"><b>${h.table}</b> · Hand ${h.hand_at_table}</span>
      <span class="h-meta">${GAMES[h.game] ? GAMES[h.game].short : h.game} · ${new Date(h.ended_at).toLocaleString()}${h.position ? ` · ${h.position}` : ''}${h.watched ? ' · watched' : ''}${h.showdown ? ' · showdown' : ''}${h.all_in ? ' · all in' : ''}</span>
      <span class="h-cards">${h.cards ? cards(h.cards, 'sm') : html`<span class="note">not dealt in</span>`}</span>
      <span class="h-board">${h.boards.map((run) => run.map((b) => (b.length ? cards(b) : null)))}</span>
      <span class="h-pot">Pot ${h.pot}</span>
      ${net == null ? html`<span class="h-net"></span>` : html`<span class=${`h-net ${net > 0 ? 'up' : net < 0 ? 'down' : ''}`} data-net=${net}>${signed(net)}</span>`}
    </a>
  </li>`;
}

export function myHandsView(ctrl) {
  return html`<div class="page my-hands-page">
    <header class="topbar">
      <a class="home-link" href="/" aria-label="Home">♠</a>
      <div class="title"><strong class="table-name">My hands</strong>
        <span class="sub">${ctrl.me ? ctrl.me.name : ''} · every table</span></div>
      ${ctrl.me ? html`<a class="btn ghost" href=${`/players/${ctrl.me.player_id}`} data-link="my-stats">My statistics</a>` : null}
    </header>
    ${ctrl.me ? filtersView(ctrl) : html`<p class="card-box">Pick a name on the <a href="/">home page</a> first.</p>`}
    ${ctrl.error ? html`<div class="toast error" role="alert">${ctrl.error}</div>` : null}
    ${ctrl.indexing ? html`<p class="note">Older hands are still being read: ask again in a moment.</p>` : null}
    <ul class="hand-list" aria-label="Hands" aria-busy=${ctrl.busy ? 'true' : 'false'}>${ctrl.hands.map(row)}</ul>
    ${!ctrl.busy && ctrl.me && !ctrl.hands.length && !ctrl.error ? html`<p class="note" data-empty="1">No hand matches.</p>` : null}
    ${ctrl.next ? html`<div class="row"><button type="button" class="btn" data-cmd="older" disabled=${ctrl.busy} onClick=${() => ctrl.load(true)}>Older hands</button></div>` : null}
  </div>`;
}
