// The ledger and settle-up, from the server's ledger endpoint (docs/protocol.md 2.1): per
// player buy-ins, top-ups, adjustments, cash-outs, stack and net; the fewest payments that
// square every net, copyable as text; the CSV download. A tournament's table shows the
// tournament's standings instead (place, player, prize).
import { html } from '../html.js';
import { dialogRef } from '../focus.js';
import { sessionStatsView } from './stats.js';
import { graphView } from './graph.js';

const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

const ordinal = (n) => {
  const tens = n % 100;
  const end = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' })[n % 10] || 'th';
  return `${n}${end}`;
};

// A tournament table's result: the tournament's places and prizes (its chips are tournament
// chips, nobody's money: no net, no settle-up), the chips of those still in at this table.
function standingsView(ctrl, t) {
  const row = (r) => html`<tr data-standing=${r.player_id} data-place=${r.place == null ? '' : r.place}>
    <td>${r.place == null ? 'still in' : ordinal(r.place)}</td>
    <th scope="row">${r.name}${r.bot ? ' (bot)' : ''}</th>
    <td>${r.prize ? r.prize : ''}</td>
    <td>${r.chips == null ? '' : `${r.chips} chips`}</td>
  </tr>`;
  return html`
    <p class="hint">${t.status === 'finished' ? 'The tournament is over' : 'The tournament is on'}:
      <a href=${`/tournaments/${encodeURIComponent(t.code)}`}>${t.name || 'Tournament'}</a>. Places and prizes are the result here: tournament chips are not money.</p>
    <div class="ledger-scroll">
      <table class="ledger-table standings" data-standings="1">
        <thead><tr><th scope="col">Place</th><th scope="col">Player</th><th scope="col">Prize</th><th scope="col">Chips</th></tr></thead>
        <tbody>${t.standings.map(row)}</tbody>
      </table>
    </div>
    <div class="row">
      <a class="btn" href=${`/api/tables/${encodeURIComponent(ctrl.code)}/ledger.csv`} download="standings.csv">Download CSV</a>
      <button type="button" class="btn" onClick=${() => ctrl.openLedger()}>Refresh</button>
    </div>`;
}

export function ledgerDialog(ctrl) {
  const l = ctrl.ui.ledger;
  const close = () => ctrl.closeDialog();
  let body;
  if (!l) body = html`<p class="hint">Loading…</p>`;
  else if (l.error) body = html`<p class="hint" role="alert">${l.error}</p>`;
  else if (l.tournament) body = standingsView(ctrl, l.tournament);
  else {
    const row = (p) => html`<tr data-ledger-player=${p.player_id}>
      <th scope="row">${p.name}${p.bot ? ' (bot)' : ''}${p.seated ? '' : ' (left)'}</th>
      <td class=${p.net > 0 ? 'up' : p.net < 0 ? 'down' : ''} data-net=${p.net}>${signed(p.net)}</td>
      <td>${p.stack + p.in_play}</td>
      <td>${p.buy_in}</td><td>${p.top_up}</td><td>${signed(p.adjustment)}</td><td>${p.cash_out}</td>
    </tr>`;
    // People first; the practice bots apart (their chips are nobody's money).
    const people = l.players.filter((p) => !p.bot);
    const bots = l.players.filter((p) => p.bot);
    body = html`
      <div class="ledger-scroll">
        <table class="ledger-table">
          <thead><tr>
            <th scope="col">Player</th><th scope="col">Net</th><th scope="col">Stack</th><th scope="col">Buy-ins</th>
            <th scope="col">Top-ups</th><th scope="col">Adjustments</th><th scope="col">Cash-outs</th>
          </tr></thead>
          <tbody>${people.map(row)}</tbody>
          ${bots.length ? html`<tbody class="bots" aria-label="Practice bots">
            <tr><th scope="rowgroup" colspan="7" class="group">Practice bots: play chips, not settled</th></tr>
            ${bots.map(row)}
          </tbody>` : null}
          <tfoot><tr>
            <td colspan="7">Chips in ${l.totals.chips_in} = on the table ${l.totals.on_table} + cashed out ${l.totals.cashed_out}</td>
          </tr></tfoot>
        </table>
      </div>
      ${l.adjustments && l.adjustments.length ? html`<h3>Adjustments</h3>
        <ul class="adjustments" aria-label="Adjustments">
          ${l.adjustments.map((a) => html`<li><b>${a.name}</b> ${signed(a.amount)}${a.reason ? html`: <span class="reason">${a.reason}</span>` : ''}</li>`)}
        </ul>` : null}
      <h3>Settle up</h3>
      ${l.payments.length
        ? html`<ul class="payments" aria-label="Payments">${l.payments.map((p) => html`<li>${p.text}</li>`)}</ul>`
        : html`<p class="hint">${bots.length ? 'Nobody pays anybody.' : 'Everyone is even: nobody pays.'}</p>`}
      ${bots.length ? html`<p class="hint" data-bots-net=${l.bots_net || 0}>The practice bots ${l.bots_net > 0 ? `won ${l.bots_net}` : l.bots_net < 0 ? `lost ${-l.bots_net}` : 'are even'}:
        nobody pays a bot or is paid by one${l.unsettled && l.unsettled.length
          ? html`, so these are not settled: ${l.unsettled.map((u, i) => html`${i ? ', ' : ''}<b>${u.name}</b> ${signed(u.amount)}`)}` : ''}.</p>` : null}
      <div class="row">
        ${l.payments.length ? html`<button type="button" class="btn" onClick=${() => ctrl.copyPayments()}>Copy payments</button>` : null}
        <a class="btn" href=${`/api/tables/${encodeURIComponent(ctrl.code)}/ledger.csv`} download="ledger.csv">Download CSV</a>
        <button type="button" class="btn" onClick=${() => ctrl.openLedger()}>Refresh</button>
      </div>`;
  }
  // Two views of the evening: the money (who pays whom), and the session (the graph of each
  // player's net and the statistics).
  const session = ctrl.ui.ledgerTab === 'session';
  const tab = (name, label) => html`<button type="button" role="tab" aria-selected=${(name === 'session') === session ? 'true' : 'false'}
    class=${`btn small ${(name === 'session') === session ? 'primary' : 'ghost'}`} data-ledger-tab=${name}
    onClick=${() => ctrl.ledgerTab(name)}>${label}</button>`;
  return html`<div class="modal-back" onClick=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <div class="modal wide" role="dialog" aria-modal="true" aria-label="Ledger" data-dialog="ledger" tabindex="-1" ref=${dialogRef}>
      <h2>Ledger</h2>
      <div class="row" role="tablist" aria-label="Ledger views">${tab('money', l && l.tournament ? 'Standings' : 'Money')}${tab('session', 'Graph and statistics')}</div>
      ${session ? html`<section aria-label="The session">
        <h3>Net over the session</h3>
        ${graphView(ctrl.ui.graph)}
        <h3>Statistics</h3>
        ${sessionStatsView(ctrl)}
      </section>` : body}
      <div class="row"><button type="button" class="btn primary" onClick=${close}>Close</button></div>
    </div>
  </div>`;
}
