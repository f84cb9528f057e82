// The hand log panel (js/hand-log.js holds its lines): beside the table from 1200 px wide,
// above the chat; a sheet over the top of the felt on narrower screens and phones, never over
// the dock. Opened and closed from the menu's "Log" (kept in the settings).
import { html } from '../html.js';

// "A♥ 10♦" in a line: each card's suit coloured.
const CARD = /(10|[2-9JQKA])([♠♥♦♣])/g;
const SUIT = { '♠': 's', '♥': 'h', '♦': 'd', '♣': 'c' };

function withCards(text) {
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(CARD)) {
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push(html`<span class=${`log-card suit-${SUIT[m[2]]}`}>${m[0]}</span>`);
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

export function handLogView(ctrl) {
  if (!ctrl.settings.logOpen) return null;
  const hands = ctrl.log.hands;
  return html`<aside class="hand-log" aria-label="Hand log">
    <div class="log-head">
      <h2>Hand log</h2>
      <button type="button" class="btn ghost small" data-cmd="close-log" aria-label="Close the hand log"
        onClick=${() => ctrl.setSetting('logOpen', false)}>✕</button>
    </div>
    <div class="log-body">
      <div>
        ${hands.length ? hands.map((h) => html`<section class="log-hand" key=${h.number} data-log-hand=${h.number}>
          <h3>${h.number ? `Hand #${h.number}` : 'Before the first hand'}</h3>
          <ol>${h.lines.map((l) => html`<li key=${l.id} class=${`log-line ${l.kind}`}>${withCards(l.text)}</li>`)}</ol>
        </section>`) : html`<p class="hint">Each action, street, show and award of the hand is written here.</p>`}
      </div>
    </div>
  </aside>`;
}
