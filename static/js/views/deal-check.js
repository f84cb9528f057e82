// The deal check's marks (static/js/fairness.js): a small "verified" beside the hand number,
// and a loud warning when a card does not match what the server committed to.
import { html } from '../html.js';

export function dealMark(ctrl, hand) {
  const st = ctrl.deals.status(hand.id);
  if (st.kind === 'verified') {
    return html` <span class="deal-check verified" title=${`${st.checked} cards checked against the deal's commitments`}>✓ verified</span>`;
  }
  if (st.kind === 'checking') return html` <span class="deal-check checking">checking…</span>`;
  if (st.kind === 'unavailable') {
    return html` <span class="deal-check unavailable" title="The browser checks the cards only over HTTPS (or on this machine)">not checked</span>`;
  }
  if (st.kind === 'failed') return html` <span class="deal-check failed">✗ mismatch</span>`;
  return null;
}

export function dealWarning(ctrl) {
  const bad = ctrl.deals.failures();
  const session = ctrl.deals.session;
  const note = session ? sessionNote(session) : null;
  if (!bad.length) return note;
  return html`${note}<div class="banner error deal-warning" role="alert">
    <span><strong>Warning: a dealt card does not match the server's commitment.</strong>
    ${bad.map((h) => html` Hand ${h.number != null ? `#${h.number}` : ''}: ${h.bad.join('; ')}.`)}
    The deal of ${bad.length === 1 ? 'this hand' : 'these hands'} may have been changed (docs/fairness.md).</span>
  </div>`;
}

function sessionNote(s) {
  if (s.state === 'checking') return html`<div class="banner deal-session" role="status">Seed revealed: recomputing every deck of the session…</div>`;
  if (s.state === 'verified') {
    return html`<div class="banner deal-session verified" role="status">✓ Session verified: ${s.verified === 1 ? 'the one hand' : `the ${s.verified} hands`} dealt match${s.verified === 1 ? 'es' : ''} the revealed seed and what you were shown.</div>`;
  }
  return html`<div class="banner error deal-session failed" role="alert"><span><strong>Warning: the session's decks do not match.</strong> ${s.problems.join('; ')}.</span></div>`;
}
