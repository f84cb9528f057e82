// The replayer page: the table's own felt, seats, boards, pot and results at the chosen step,
// with the step controls, the all-in equity and the exports.
import { html } from '../html.js';
import { seatView, betView, boardsView, potView, resultsView } from './table.js';
import { SPEEDS } from '../replay.js';

export function replayView(r) {
  if (r.error) {
    return html`<div class="page table-page replay-page"><div class="banner error" role="alert">${r.error} <a href="/">Home</a></div></div>`;
  }
  if (!r.state) return html`<div class="page table-page replay-page"><p class="loading">Loading the hand…</p></div>`;
  const rec = r.record;
  const s = r.state;
  const h = s.hand;
  const c = s.table.config;
  return html`<div class=${`page table-page replay-page seats-${c.seats}`} data-step=${r.step} data-steps=${r.last}>
    <header class="topbar">
      <a class="home-link" href="/" aria-label="Home">♠</a>
      <div class="title">
        <strong class="table-name">${rec.table.name}</strong>
        <span class="sub">${rec.labels.game} · ${rec.labels.stakes} · <span class="hand-no">Hand #${rec.number}</span></span>
      </div>
    </header>
    <main class="felt-wrap">
      <div class="felt">
        <div class="rail"></div>
        ${s.seats.map((seat, i) => seatView(r, i, seat))}
        ${h ? Object.values(h.players).map((p) => betView(r, p)) : null}
        <div class="center">
          ${rec.bomb_pot ? html`<span class="badge bomb">Bomb pot</span>` : null}
          ${boardsView(r, h)}
          ${potView(h)}
        </div>
      </div>
    </main>
    ${controls(r)}
    ${resultsView(r)}
    ${equityView(r)}
    ${exportsView(r)}
  </div>`;
}

function controls(r) {
  const step = r.step;
  const ev = step > 0 ? r.record.steps[step - 1] : null;
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
    <div class="replay-where"><span class="step-count">Step ${step} of ${r.last}</span>${ev ? html` · <span class="step-type">${describe(r, ev)}</span>` : null}</div>
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
    case 'hand_started': return 'Hand started';
    case 'forced_bet': return `${name(r, ev.seat)}: ${p && p.last ? p.last : ev.kind}`;
    case 'hole_cards': return `${name(r, ev.seat)} is dealt in`;
    case 'round': return `The ${ev.street}`;
    case 'board': return `${ev.street[0].toUpperCase()}${ev.street.slice(1)}`;
    case 'acted': return `${name(r, ev.seat)}: ${p && p.last ? p.last : ev.action}`;
    case 'turn': return `${name(r, ev.seat)} to act`;
    case 'pots': return 'Bets gathered';
    case 'shown': return `${name(r, ev.seat)} shows`;
    case 'mucked': return `${name(r, ev.seat)} mucks`;
    case 'award': return `${name(r, ev.seat)} wins ${ev.amount}`;
    case 'runs': return ev.runs > 1 ? 'Run it twice' : 'Run once';
    case 'hand_ended': return 'Hand over';
    default: return ev.type.replace(/_/g, ' ');
  }
}

function equityView(r) {
  const eq = r.record.equity;
  if (!eq) return null;
  return html`<section class="results equity" data-equity="1">
    <h2>All-in equity (${eq.street}, ${eq.method === 'exact' ? 'every runout' : `${eq.runouts} runouts`})</h2>
    ${eq.players.map((e) => html`<div class="award" data-equity-seat=${e.seat}>
      <span class="who">${name(r, e.seat)}</span>
      <span class="amount">${(e.share * 100).toFixed(1)}%</span>
      <span class="hand-name">expected ${e.expected}</span>
    </div>`)}
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
