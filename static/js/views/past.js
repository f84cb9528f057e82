// The home page's way back: "My hands", the viewer's closed tables and past tournaments,
// each with its ledger and its session exports; and the sign-in link that carries the
// viewer to another device (the server makes it, with its QR code, on request).
import { html } from '../html.js';
import * as api from '../api.js';
import { GAMES } from '../format.js';
import { ledgerDialog } from './ledger.js';
import { showLedgerTab, copyPayments } from '../ledger-tabs.js';

// A closed table's ledger, opened from the home page: the table's own ledger dialog, driven
// by what it asks of its controller (a closed table has no live page to open it on: its
// socket is refused, and the server reads the ledger from the stored entries).
class PastLedger {
  constructor(code, redraw, close) {
    this.code = code;
    this.redraw = redraw;
    this.close = close;
    this.ui = { dialog: 'ledger', ledgerTab: 'money', ledger: null };
  }

  async openLedger() {
    this.redraw();
    try { this.ui.ledger = await api.tableLedger(this.code); } catch (e) { this.ui.ledger = { error: e.message }; }
    this.redraw();
  }

  ledgerTab(name) { showLedgerTab(this, name); }

  copyPayments() { copyPayments(this.ui.ledger); }

  closeDialog() { this.close(); }
}

export class PastCtrl {
  constructor(redraw) {
    this.redraw = redraw;
    this.past = null;
    this.link = null; // the link just made (shown once)
    this.links = [];
    this.error = null;
    this.ledger = null; // a closed table's ledger, open over the home page
    this.onKey = (e) => { if (e.key === 'Escape' && this.ledger) this.closeLedger(); };
  }

  openLedger(code) {
    this.ledger = new PastLedger(code, this.redraw, () => this.closeLedger());
    document.addEventListener('keydown', this.onKey);
    this.ledger.openLedger();
  }

  closeLedger() {
    this.ledger = null;
    document.removeEventListener('keydown', this.onKey);
    this.redraw();
  }

  async load() {
    try { this.past = await api.myPast(); } catch { this.past = { tables: [], tournaments: [] }; }
    try { this.links = await api.signInLinks(); } catch { this.links = []; }
    this.redraw();
  }

  async newLink() {
    this.error = null;
    try {
      this.link = await api.newSignInLink();
      this.links = await api.signInLinks();
    } catch (e) { this.error = e.message; }
    this.redraw();
  }

  async revoke(id) {
    try {
      await api.revokeSignInLink(id);
      if (this.link && this.link.id === id) this.link = null;
      this.links = await api.signInLinks();
    } catch (e) { this.error = e.message; }
    this.redraw();
  }

  async copy() {
    try { await navigator.clipboard.writeText(this.link.url); this.copied = true; } catch { this.copied = false; }
    this.redraw();
  }
}

function exports(ctrl, code) {
  const base = `/api/tables/${encodeURIComponent(code)}`;
  return html`<span class="exports">
    <button type="button" class="btn small ghost" data-past-ledger=${code} onClick=${() => ctrl.openLedger(code)}>Ledger</button>
    <a href=${`${base}/ledger.csv`}>CSV</a>
    ${hands(code)}
  </span>`;
}

function hands(code) {
  const base = `/api/tables/${encodeURIComponent(code)}`;
  return html`<a href=${`${base}/hands.txt`}>PokerStars text</a>
    <a href=${`${base}/hands.phhs`}>PHH</a>`;
}

// One group for a tournament: its standings (the same from any of its tables) and results,
// then each table's hands, labelled with the table's name.
function tournamentExports(ctrl, t) {
  const first = t.tables[0];
  return html`<span class="exports">
    ${first ? html`<button type="button" class="btn small ghost" data-past-ledger=${first.code} onClick=${() => ctrl.openLedger(first.code)}>Standings</button>` : null}
    <a href=${`/api/tournaments/${encodeURIComponent(t.code)}/results.csv`}>Results CSV</a>
  </span>
  ${t.tables.map((table) => html`<span class="exports table-exports" data-past-tournament-table=${table.code}>
    <span class="t-table">${table.name || 'Table'}:</span> ${hands(table.code)}
  </span>`)}`;
}

export function pastView(ctrl) {
  const past = ctrl.past;
  return html`<section class="card-box past" aria-label="Afterwards">
    <h2>Afterwards</h2>
    <p><a class="btn" href="/hands" data-link="my-hands">My hands</a> every hand you played or watched, at every table</p>
    ${past && past.tables.length ? html`<h3>Closed tables</h3>
      <ul class="tables">${past.tables.map((t) => html`<li class="past-table" data-past-table=${t.code}>
        <span class="t-name">${t.name}</span>
        <span class="t-game">${GAMES[t.game] ? GAMES[t.game].short : t.game} · closed ${new Date(t.closed_at).toLocaleDateString()}</span>
        ${exports(ctrl, t.code)}
      </li>`)}</ul>` : null}
    ${past && past.tournaments.length ? html`<h3>Past tournaments</h3>
      <ul class="tables">${past.tournaments.map((t) => html`<li class="past-table" data-past-tournament=${t.code}>
        <a class="t-name" href=${`/tournaments/${encodeURIComponent(t.code)}`}>${t.name || 'Tournament'}</a>
        <span class="t-game">${t.place ? `place ${t.place}` : 'hosted'}${t.prize ? ` · prize ${t.prize}` : ''} · ${new Date(t.finished_at).toLocaleDateString()}</span>
        ${tournamentExports(ctrl, t)}
      </li>`)}</ul>` : null}
    ${ctrl.ledger ? ledgerDialog(ctrl.ledger) : null}
  </section>`;
}

const STATES = { waiting: 'waiting', used: 'used', expired: 'expired', revoked: 'revoked' };

export function devicesView(ctrl) {
  const link = ctrl.link;
  return html`<section class="card-box devices" aria-label="Another device">
    <h2>On another device</h2>
    <p class="hint">A link that signs your phone or another browser in as you: once, within 15 minutes. Keep it to yourself.</p>
    ${ctrl.error ? html`<p class="hint" role="alert">${ctrl.error}</p>` : null}
    ${link ? html`<div class="sign-in-link" data-sign-in-link=${link.id}>
      <img class="qr" src=${link.qr} alt="QR code of your sign-in link" width="180" height="180" />
      <div>
        <input readonly aria-label="Sign-in link" value=${link.url} onFocus=${(e) => e.target.select()} data-sign-in-url="1" />
        <div class="row">
          <button type="button" class="btn" onClick=${() => ctrl.copy()}>${ctrl.copied ? 'Copied' : 'Copy link'}</button>
          <button type="button" class="btn ghost" data-cmd="revoke-link" onClick=${() => ctrl.revoke(link.id)}>Revoke</button>
        </div>
        <p class="hint">Until ${new Date(link.expires_at).toLocaleTimeString()}.</p>
      </div>
    </div>` : html`<button type="button" class="btn" data-cmd="new-sign-in-link" onClick=${() => ctrl.newLink()}>Show a sign-in link</button>`}
    ${ctrl.links.length ? html`<ul class="link-list">${ctrl.links.slice(0, 5).map((l) => html`<li data-link-state=${l.state}>
      ${new Date(l.created_at).toLocaleString()}: ${STATES[l.state]}
      ${l.state === 'waiting' || l.state === 'used' ? html`<button type="button" class="btn small ghost" onClick=${() => ctrl.revoke(l.id)}>${l.state === 'used' ? 'Sign that device out' : 'Revoke'}</button>` : null}
    </li>`)}</ul>` : null}
  </section>`;
}

// `/signin#<token>`: the token never reaches the server in an address; it is posted, then
// removed from the address bar.
export async function signIn(redraw, page) {
  const token = location.hash.slice(1);
  history.replaceState(null, '', '/signin');
  if (!token) { page.message = 'This sign-in link has no token.'; redraw(); return; }
  try {
    const me = await api.redeemSignInLink(token);
    page.me = me;
    page.message = null;
  } catch (e) { page.message = e.message; }
  redraw();
}

export function signInView(page) {
  return html`<div class="page home-page">
    <header class="hero"><h1><span class="logo">♠</span> Omaha</h1></header>
    <section class="card-box" data-sign-in=${page.me ? 'done' : page.message ? 'failed' : 'busy'}>
      ${page.me ? html`<h2>Signed in as <span class="me">${page.me.name}</span></h2>
        <p>This device now sees your hands, ledger and tables.</p>
        <div class="row"><a class="btn primary" href="/">Your tables</a><a class="btn" href="/hands">My hands</a></div>`
        : page.message ? html`<h2>Not signed in</h2><p role="alert">${page.message}</p><a class="btn" href="/">Home</a>`
        : html`<p class="loading">Signing in…</p>`}
    </section>
  </div>`;
}
