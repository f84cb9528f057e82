// The replayer: the table's own felt, seats, boards, pot and results at the chosen step,
// with the step controls, each street's pot, each street's equity and the exports. On its
// own page, or as a panel over the live table (`r.panel`), which stays live underneath.
import { html } from '../html.js';
import { seatView, betView, boardsView, potView, resultsView, tall } from './table.js';
import { SPEEDS, STREETS, streetPots } from '../replay.js';
import { dialogRef } from '../focus.js';

const STREET_NAMES = { preflop: 'Pre-flop', flop: 'Flop', turn: 'Turn', river: 'River', total: 'Total' };

export function replayView(r) {
  if (r.error) {
    return html`<div class="page table-page replay-page"><div class="banner error" role="alert">${r.error} ${backLink(r)}</div></div>`;
  }
  if (!r.state) return html`<div class="page table-page replay-page"><p class="loading">Loading the hand…</p></div>`;
  const rec = r.record;
  const s = r.state;
  const h = s.hand;
  const c = s.table.config;
  return html`<div class=${`page table-page replay-page seats-${c.seats}${r.panel ? ' in-panel' : ''}`} data-step=${r.step} data-steps=${r.last}>
    <header class="topbar">
      ${r.panel ? null : html`<a class="home-link" href="/" aria-label="Home">♠</a>`}
      <div class="title">
        <strong class="table-name">${rec.table.name} · <span class="hand-no" data-hand-at-table=${rec.hand_at_table}>Hand ${rec.hand_at_table}</span></strong>
        <span class="sub">${rec.labels.game} · ${rec.labels.stakes} · <span class="serial">server hand #${rec.number}</span></span>
      </div>
      ${backLink(r)}
    </header>
    <main class="felt-wrap"><div class="felt-box">
      <div class=${tall(h, s.table.config.boards) ? 'felt tall' : 'felt'}>
        <div class="rail"></div>
        ${s.seats.map((seat, i) => seatView(r, i, seat))}
        ${h ? Object.values(h.players).map((p) => betView(r, p)) : null}
        <div class="center">
          ${rec.bomb_pot ? html`<span class="badge bomb">Bomb pot</span>` : null}
          ${boardsView(r, h)}
          ${potView(h)}
        </div>
      </div>
    </div></main>
    ${controls(r)}
    ${potsView(r)}
    ${equityView(r)}
    ${resultsView(r)}
    ${exportsView(r)}
  </div>`;
}

// Back to the table: closes the panel over it, or opens the table's page.
function backLink(r) {
  if (r.panel) {
    return html`<button type="button" class="btn small primary" data-replay="back-to-table" onClick=${() => r.close()}>Back to the table</button>`;
  }
  if (r.code) return html`<a class="btn small" data-replay="back-to-table" href=${`/t/${encodeURIComponent(r.code)}`}>Back to the table</a>`;
  return html`<a class="btn ghost" href="/hands">My hands</a>`;
}

function controls(r) {
  const step = r.step;
  const ev = r.current();
  return html`<section class="replay-controls" aria-label="Replay">
    <div class="replay-buttons">
      <button type="button" class="btn ghost" data-replay="start" aria-label="First step" disabled=${step === 0} onClick=${() => { r.pause(); r.go(0); }}>«</button>
      <button type="button" class="btn ghost" data-replay="back" aria-label="Step back" disabled=${step === 0} onClick=${() => r.back()}>◀</button>
      ${r.playing
        ? html`<button type="button" class="btn" data-replay="pause" onClick=${() => r.pause()}>Pause</button>`
        : html`<button type="button" class="btn" data-replay="play" onClick=${() => r.play()}>Play</button>`}
      <button type="button" class="btn ghost" data-replay="forward" aria-label="Step forward" disabled=${step >= r.last} onClick=${() => { r.pause(); r.forward(); }}>▶</button>
      <button type="button" class="btn ghost" data-replay="end" aria-label="Last step" disabled=${step >= r.last} onClick=${() => r.go(r.last)}>»</button>
      <label class="speed">Speed
        <select data-replay="speed" onChange=${(e) => r.setSpeed(Number(e.target.value))}>
          ${SPEEDS.map((v) => html`<option value=${v} selected=${v === r.speed}>${v}×</option>`)}
        </select>
      </label>
    </div>
    <div class="replay-where" aria-live="polite"><span class="step-count">Step ${step} of ${r.last}</span>${ev ? html` · <span class="step-type">${describe(r, ev)}</span>` : null}</div>
  </section>`;
}

function name(r, seat) {
  const s = r.state.seats[seat];
  return s ? s.name : `Seat ${seat + 1}`;
}

// A line for the step just applied (display only).
function describe(r, ev) {
  const p = ev.seat != null && r.state.hand && r.state.hand.players[ev.seat];
  switch (ev.type) {
    case 'deal': return 'Cards dealt';
    case 'board': return `${ev.street === 'preflop' ? 'First board card' : STREET_NAMES[ev.street]}${r.record.runs > 1 ? ` (run ${ev.run + 1})` : ''}`;
    case 'acted': return `${name(r, ev.seat)}: ${p && p.last ? p.last : ev.action}`;
    case 'shown': return `${name(r, ev.seat)} shows`;
    case 'mucked': return `${name(r, ev.seat)} mucks`;
    case 'award': return `${name(r, ev.seat)} wins ${ev.amount}`;
    case 'bet_returned': return `${ev.amount} returned to ${name(r, ev.seat)}`;
    case 'runs': return ev.runs > 1 ? 'Run it twice' : 'Run once';
    default: return ev.type.replace(/_/g, ' ');
  }
}

// Each street's pot as it began, the current street marked.
function potsView(r) {
  const now = r.street();
  return html`<section class="street-pots" aria-label="Pot by street">
    ${streetPots(r.record).map((p) => html`<span class=${`street-pot ${p.street === now ? 'now' : ''}`} data-street-pot=${p.street}>
      <span class="street">${STREET_NAMES[p.street]}</span> <b>${p.pot}</b></span>`)}
  </section>`;
}

const percent = (share) => `${(share * 100).toFixed(1)}%`;

// Each street's equity for the hands this viewer may see (the others are random hands to
// it), the current street marked; then the all-in equity if there was one.
function equityView(r) {
  const eq = r.equity;
  if (!eq) return r.equityNote ? html`<section class="results equity"><p class="note">${r.equityNote}</p></section>` : null;
  const now = r.street();
  const streets = eq.streets.filter((s) => STREETS.includes(s.street));
  const seats = [...new Set(streets.flatMap((s) => s.players.map((x) => x.seat)))];
  const all = eq.all_in;
  return html`<section class="results equity" data-equity="1">
    <h2>Equity by street</h2>
    ${streets.length ? html`<div class="ledger-scroll"><table class="ledger-table equity-table">
      <thead><tr><th scope="col">Player</th>${streets.map((s) => html`<th scope="col" class=${s.street === now ? 'now' : ''}>${STREET_NAMES[s.street]}</th>`)}</tr></thead>
      <tbody>${seats.map((seat) => html`<tr data-equity-row=${seat}>
        <th scope="row">${name(r, seat)}</th>
        ${streets.map((s) => {
          const x = s.players.find((y) => y.seat === seat);
          return html`<td class=${s.street === now ? 'now' : ''} data-equity-street=${s.street}>${x ? percent(x.share) : '–'}</td>`;
        })}
      </tr>`)}</tbody>
    </table></div>
    <p class="note">Share of the pot in expectation${streets.some((s) => s.unknown) ? '; hands you did not see count as random hands' : ''}${streets.some((s) => s.method !== 'exact') ? ' (sampled where the run-outs are many)' : ''}.</p>`
    : html`<p class="note">No street with a hand you may see.</p>`}
    ${all ? html`<h2>All in (${STREET_NAMES[all.street]}, ${all.method === 'exact' ? 'every run-out' : `${all.runouts} run-outs`})</h2>
      ${all.players.map((e) => html`<div class="award" data-equity-seat=${e.seat}>
        <span class="who">${name(r, e.seat)}</span>
        <span class="amount">${percent(e.share)}</span>
        <span class="hand-name">expected ${e.expected}</span>
      </div>`)}` : null}
  </section>`;
}

function exportsView(r) {
  const q = r.query();
  const base = `/api/hands/${r.number}`;
  return html`<section class="results exports">
    <h2>Share and export</h2>
    <div class="replay-buttons">
      <button type="button" class="btn ghost" data-replay="copy" onClick=${() => r.copyLink()}>${r.copied ? 'Link copied' : 'Copy link'}</button>
      <a class="btn ghost" data-export="pokerstars" href=${`${base}/pokerstars.txt${q}`}>PokerStars text</a>
      <a class="btn ghost" data-export="phh" href=${`${base}/hand.phh${q}`}>PHH</a>
    </div>
    <p class="note">Whoever opens the link sees what their seat may see: their own cards and the cards shown.</p>
  </section>`;
}

// The replayer over the live table: the table goes on underneath, and a turn of the
// viewer's is announced here with the way back.
export function replayPanel(ctrl) {
  const r = ctrl.replay;
  if (!r) return null;
  const mine = ctrl.isMyTurn && ctrl.isMyTurn();
  return html`<div class="replay-panel" role="dialog" aria-modal="true" aria-label="Replay" data-dialog="replay" tabindex="-1" ref=${dialogRef}>
    ${mine ? html`<div class="banner" role="alert" data-your-turn="1">It is your turn at the table. <button type="button" class="btn small primary" onClick=${() => r.close()}>Back to the table</button></div>` : null}
    ${replayView(r)}
  </div>`;
}
