// Focus for dialogs: a dialog takes the focus when it opens, keeps Tab inside it, and gives
// the focus back to what had it when it closes (Escape closes: table-ctrl.js).
// Used as a Preact ref (one stable function: called with the element, then with null).

let returnTo = null;

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function trapTab(e) {
  if (e.key !== 'Tab') return;
  const items = [...e.currentTarget.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
  if (!items.length) { e.preventDefault(); return; }
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && (document.activeElement === first || !e.currentTarget.contains(document.activeElement))) {
    e.preventDefault(); last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault(); first.focus();
  }
}

// The focus on nothing (its element was redrawn away: a "Sit here" once the seat is taken, an
// action button once the action is sent): to the command box, else the first control of the
// dock (the actions), else the top bar. Checked once the next frame is drawn, then every two
// frames' time (an action's buttons stay disabled until the server answers), up to 20 times.
// The retries are timers, not animation frames: a frame asked for by script is drawn even when
// nothing changed, and a seat change at a spectator's page (no control to give the focus to)
// asked for forty empty frames, which every message arriving meanwhile waited behind.
const RETRY_MS = 33;
let rescue = 0; // the rescue under way (a newer call replaces it)

export function rescueFocus(tries = 20) {
  const id = ++rescue;
  // The redraw asked for after this call renders in the frame this callback runs in; a task
  // posted from it runs once that frame is drawn.
  requestAnimationFrame(() => { setTimeout(() => settle(id, tries), 0); });
}

function settle(id, tries) {
  if (id !== rescue) return;
  const a = document.activeElement;
  if (a && a !== document.body && a.isConnected && !a.disabled) return;
  const to = [document.getElementById('command'),
    ...document.querySelectorAll('.dock button:not([disabled]), .dock input[type=checkbox]')]
    .find((el) => el && el.offsetParent !== null);
  if (to) to.focus();
  // A control that would not take the focus (hidden by its style) counts as none.
  if (to && document.activeElement === to) return;
  if (tries > 0) setTimeout(() => settle(id, tries - 1), RETRY_MS);
  else { const top = document.querySelector('.topbar button:not(.sr-toggle)'); if (top) top.focus(); }
}

// Whatever the focus was on last: when a render removes it (a button redrawn away one frame
// after an earlier rescue, say), the focus fell on the body and goes to the nearest stable
// control. Called after each render (main.js): two property reads.
let lastFocused = null;
document.addEventListener('focusin', (e) => { lastFocused = e.target; });

export function afterRender() {
  if (!lastFocused || lastFocused.isConnected) return;
  lastFocused = null;
  const a = document.activeElement;
  if (!a || a === document.body) rescueFocus();
}

// A dialog closed by the table itself (the viewer's turn came): the focus goes to the dock's
// actions (`rescueFocus`), not back to the control that had opened it.
export function dropReturnFocus() { returnTo = null; }

export function dialogRef(el) {
  if (el) {
    if (el.dataset.trapped) return;
    el.dataset.trapped = '1';
    returnTo = document.activeElement;
    el.addEventListener('keydown', trapTab);
    // The field marked for it, else the first control; the dialog itself if it has none.
    const first = el.querySelector('[data-autofocus]') || el.querySelector(FOCUSABLE);
    (first || el).focus();
    return;
  }
  const back = returnTo;
  returnTo = null;
  // After the redraw that removed the dialog, so the element to return to is settled; only
  // if the focus is still on nothing: a control the player went on to meanwhile keeps it.
  requestAnimationFrame(() => {
    const a = document.activeElement;
    if (a && a !== document.body && a.isConnected) return;
    if (back && back.isConnected && back.offsetParent !== null) back.focus();
    else rescueFocus();
  });
}
