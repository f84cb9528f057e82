// The viewer's comfort settings, kept in localStorage; and the notice a page leaves the next
// one in this tab (sessionStorage).
const KEY = 'omaha.settings';
const DEFAULTS = {
  sound: true, actionSounds: true, titleBadge: true, notify: false, fourColour: false, animations: true,
  screenReader: false, logOpen: false, reactions: true,
};

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || '{}') };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(settings) {
  try { localStorage.setItem(KEY, JSON.stringify(settings)); } catch { /* private mode */ }
  applySettings(settings);
}

// Settings that are CSS live as classes on <html>.
export function applySettings(settings) {
  const root = document.documentElement.classList;
  root.toggle('four-colour', !!settings.fourColour);
  root.toggle('no-anim', !settings.animations);
}

// The notice (tournament-ctrl.js's `follow` leaves it; main.js takes it once, on arrival).
const NOTICE = 'omaha.notice';

export function leaveNotice(text) {
  try { sessionStorage.setItem(NOTICE, text); } catch { /* storage off: no notice */ }
}

export function takeNotice() {
  try {
    const text = sessionStorage.getItem(NOTICE);
    sessionStorage.removeItem(NOTICE);
    return text;
  } catch { return null; }
}
