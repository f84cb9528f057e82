// A reaction on a seat, and the viewer's own picker beside their seat's plate (js/reactions.js).
import { html } from '../html.js';
import { REACTIONS, reactionSrc } from '../reactions.js';

// the picker's own button: a smile, none of the reactions (one shown beside it is not it)
const PICKER = new URL('../../vendor/twemoji/1f642.svg', import.meta.url).href;

export function reactionBubble(ctrl, i, seat) {
  const r = ctrl.reactions ? ctrl.reactions.on(i, seat.player_id) : null; // (none in a replay)
  if (!r) return null;
  const [, label] = REACTIONS[r.name];
  return html`<span key=${r.id} class="reaction" data-reaction=${r.name} role="img" aria-label=${`${seat.name}: ${label}`}>
    <img src=${reactionSrc(r.name)} alt="" width="36" height="36" /></span>`;
}

// Only on the viewer's own seat, with the setting on (a spectator has no seat to react on):
// a button on the plate's left, and the row of reactions it opens above the seat.
function picking(ctrl, i) {
  const s = ctrl.state;
  return !!ctrl.reactions && i === s.you.seat && !s.replay && ctrl.settings.reactions !== false;
}

export function reactToggle(ctrl, i) {
  if (!picking(ctrl, i)) return null;
  const open = !!ctrl.ui.reacting;
  return html`<button type="button" class="react-toggle" data-cmd="react" aria-label="React" aria-expanded=${open}
    onClick=${() => { ctrl.ui.reacting = !open; ctrl.redraw(); }}><img src=${PICKER} alt="" width="22" height="22" /></button>`;
}

export function reactPicker(ctrl, i) {
  if (!picking(ctrl, i) || !ctrl.ui.reacting) return null;
  return html`<div class="react-picker" role="group" aria-label="Reactions">
    ${Object.entries(REACTIONS).map(([name, [, label]]) => html`<button type="button" class="react-btn" data-react=${name}
      aria-label=${label} title=${label} onClick=${() => ctrl.react(name)}><img src=${reactionSrc(name)} alt="" width="28" height="28" /></button>`)}
  </div>`;
}
