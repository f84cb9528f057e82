// A new version of the client while this page is open (docs/client.md, "A new version"): the
// server says so on the socket (`client_version`, docs/protocol.md section 4) when the version
// this page's modules came with (`CLIENT`, socket.js) is not its own. The page then reloads,
// at a safe moment: at once when the viewer is not to act and not in the middle of something
// (typing, a dialog, a pre-action: `busy()`), else as soon as that ends. Its parts fetched on
// demand (lazy.js) would otherwise come from the new version and meet the old modules here.
//
// Never in a loop: this tab remembers the versions it reloaded for (sessionStorage), and does
// not reload for the same again within AGAIN_MS (a proxy that serves a stale page, or a
// process of the old version still answering during a rolling deploy).
import { CLIENT } from './socket.js';

const KEY = 'omaha.new-version';
const AGAIN_MS = 5 * 60 * 1000;
const NOTICE_MS = 400; // the notice on screen before the reload (it stays while the page loads)
const CHECK_MS = 1000; // also looked at this often while waiting (a draft emptied, a blur)
export const NOTICE = 'A new version of the table is here: reloading…';

export class NewVersion {
  // `busy()`: whether a reload now would lose something; `say(text)`: a short notice.
  constructor(busy, say) {
    this.busy = busy;
    this.say = say;
    this.current = null; // the server's version, once it said this page is not
    this.timer = 0;
    this.watch = 0;
  }

  heard(current) {
    if (!CLIENT || typeof current !== 'string' || current === CLIENT || this.current) return;
    if (reloadedFor(CLIENT, current) !== false) { mark('held'); return; } // (or no storage)
    this.current = current;
    mark('waiting');
    this.watch = setInterval(() => this.check(), CHECK_MS);
    this.check();
  }

  // After each change (the controller's redraw) and every CHECK_MS while a reload waits.
  check() {
    if (!this.current || this.timer || this.busy()) return;
    this.say(NOTICE);
    this.timer = setTimeout(() => {
      this.timer = 0;
      if (this.busy()) return; // the turn came meanwhile: at the next safe moment
      clearInterval(this.watch);
      remember(CLIENT, this.current);
      mark('reloading');
      location.reload();
    }, document.visibilityState === 'hidden' ? 0 : NOTICE_MS);
  }
}

// Whether reloading the page now would lose something of the viewer's (TableCtrl `ctrl`):
// the table not known yet, their turn or an action unanswered, a pre-action (kept only in the
// page), something typed or open (a dialog, a menu, a form, the replayer).
export function busy(ctrl) {
  const ui = ctrl.ui;
  return !ctrl.state || ctrl.isMyTurn() || !!ctrl.pending || !!ctrl.pre || !!ctrl.replay
    || !!(ui.dialog || ui.menuOpen || ui.reacting || ui.confirmClose || ui.rebuy != null)
    || !!(ui.chat || ui.commandText || ui.adjustAmount || ui.adjustReason)
    || Object.keys(ui.hostStakes).length > 0 || typing();
}

// A text field has the focus: the viewer may be typing.
function typing() {
  const el = document.activeElement;
  if (!el) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA') return true;
  return el.tagName === 'INPUT' && !NOT_TEXT.includes(el.type);
}
const NOT_TEXT = ['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'color', 'file', 'image'];

// Whether this tab reloaded for these versions lately; null when it cannot tell (no storage:
// then it never reloads, rather than risk a loop).
function reloadedFor(from, to) {
  try {
    const last = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    return !!(last && last.from === from && last.to === to && Math.abs(Date.now() - last.at) < AGAIN_MS);
  } catch { return null; }
}

function remember(from, to) {
  try { sessionStorage.setItem(KEY, JSON.stringify({ from, to, at: Date.now() })); } catch { /* checked */ }
}

// For the tests: 'waiting' (for a safe moment), 'reloading', or 'held' (reloaded for it lately).
function mark(state) {
  if (window.__omaha) window.__omaha.newVersion = state;
}
