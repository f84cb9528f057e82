// Chat beside the table: the table's last messages, as text (never markup); a player muted
// here is hidden on this page only (kept in this browser's settings).
import { html } from '../html.js';

export function chatView(ctrl) {
  const s = ctrl.state;
  const muted = new Set(ctrl.settings.muted || []);
  const me = s.you.player_id;
  const shown = s.chat.filter((m) => !muted.has(m.player_id));
  const hidden = s.chat.length - shown.length;
  const spectator = s.you.seat == null;
  const off = spectator && !s.you.host && s.table.config.spectator_chat === false;
  const mutedNames = [...muted].map((id) => ({ id, name: nameOf(s, id) })).filter((m) => m.name);
  return html`<section class="chat" aria-label="Chat">
    <h2>Chat</h2>
    <ol class="chat-log" aria-live="polite">
      ${shown.slice(-50).map((m) => html`<li class="chat-line" data-chat-player=${m.player_id}>
        <p class="chat-said"><b class="chat-name">${m.name}${m.seat == null ? ' (watching)' : ''}</b><span class="chat-text">${m.text}</span></p>
        ${m.player_id !== me ? html`<button type="button" class="btn ghost small mute" aria-label=${`Mute ${m.name}`}
          onClick=${() => ctrl.mute(m.player_id, true)}>Mute</button>` : null}
      </li>`)}
    </ol>
    ${hidden ? html`<p class="hint">${hidden} message${hidden > 1 ? 's' : ''} from muted players hidden.</p>` : null}
    ${mutedNames.map((m) => html`<button type="button" class="btn small" key=${m.id} onClick=${() => ctrl.mute(m.id, false)}>Unmute ${m.name}</button>`)}
    ${off
      ? html`<p class="hint">The host has turned spectators' chat off.</p>`
      : html`<form class="chat-form" onSubmit=${(e) => { e.preventDefault(); ctrl.sendChat(); }}>
          <input name="chat" maxlength="200" autocomplete="off" aria-label="Chat message" placeholder="Say something"
            value=${ctrl.ui.chat || ''} onInput=${(e) => { ctrl.ui.chat = e.target.value; }} />
          <button type="submit" class="btn">Send</button>
        </form>`}
  </section>`;
}

function nameOf(s, id) {
  const seat = s.seats.find((x) => x && x.player_id === id);
  if (seat) return seat.name;
  const said = s.chat.find((m) => m.player_id === id);
  return said ? said.name : null;
}
