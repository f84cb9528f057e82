// The table page's "last hands": the newest finished hands, each a link to its replayer.
// Loaded with each snapshot (the page opens, or resyncs) and after each hand ends (`lastHands.load(code)`).
import { html } from '../html.js';

// At most one request a second: a table of bots with no pause between hands ends several
// hands a second, and a request costs the page more than a frame's work. One asked for
// meanwhile is made when the second is over, so the list still ends up current.
const EVERY_MS = 1000;

export const lastHands = {
  code: null,
  hands: [],
  busy: false,
  again: false,
  async load(code, redraw) {
    this.code = code;
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    const wait = new Promise((resolve) => { setTimeout(resolve, EVERY_MS); });
    try {
      const res = await fetch(`/api/tables/${encodeURIComponent(code)}/hands?limit=5`, { credentials: 'same-origin' });
      if (res.ok) this.hands = (await res.json()).hands;
    } catch { /* the list is a convenience: the table works without it */ }
    redraw();
    await wait;
    this.busy = false;
    if (this.again) { this.again = false; this.load(code, redraw); }
  },
};

// Each opens the replayer over the table (the table goes on underneath); its address is the
// hand's own, for a new tab or to share: the table's code and the number players say.
export function lastHandsView(ctrl) {
  if (!lastHands.hands.length) return null;
  const code = encodeURIComponent(lastHands.code);
  const open = (e, h) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return; // a new tab
    e.preventDefault();
    ctrl.openReplay(h.hand_at_table);
  };
  return html`<section class="last-hands" aria-label="Last hands">
    <h2>Last hands</h2>
    <ul>${lastHands.hands.map((h) => html`<li>
      <a href=${`/t/${code}/h/${h.hand_at_table}`} data-hand-link=${h.number} onClick=${(e) => open(e, h)}>Hand #${h.hand_at_table}</a>
      <span class="pot-size"> · pot ${h.pot}</span>
    </li>`)}</ul>
    <a class="my-hands-link" href="/hands" target="_blank" rel="noopener" data-link="my-hands">My hands</a>
  </section>`;
}
