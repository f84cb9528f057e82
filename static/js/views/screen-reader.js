// The screen-reader mode's panel, first after the top bar: the command box (typed actions,
// see commands.js) and the live region that says each action and each turn (speech.js).
// Fetched with the mode (views/table.js draws its switch).
import { html } from '../html.js';

export function screenReaderView(ctrl) {
  if (!ctrl.settings.screenReader) return null;
  const ui = ctrl.ui;
  return html`<section class="sr-panel" aria-label="Commands">
    <form class="command-form" onSubmit=${(e) => { e.preventDefault(); ctrl.runCommand(ui.commandText || ''); }}>
      <label for="command">Command</label>
      <input id="command" name="command" autocomplete="off" autocapitalize="off" spellcheck="false"
        aria-describedby="command-help" value=${ui.commandText || ''} ref=${(el) => focusOnce(ctrl, el)}
        onInput=${(e) => { ui.commandText = e.target.value; }} />
      <button type="submit" class="btn">Do it</button>
    </form>
    <p id="command-help" class="hint">Type fold, check, call, raise 60, all in or pot; cards, board, seats or status to hear the table; help for the rest.</p>
    <div class="announcements" role="log" aria-live="polite" aria-label="Table announcements">
      <div>${ctrl.narrator.lines.slice(-12).map((l) => html`<p key=${l.id}>${l.text}</p>`)}</div>
    </div>
  </section>`;
}

// The mode just turned on from its switch: the focus goes to the command box once drawn.
function focusOnce(ctrl, el) {
  if (!el || !ctrl.ui.focusCommand) return;
  ctrl.ui.focusCommand = false;
  el.focus();
}
