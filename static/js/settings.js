// The viewer's comfort settings, kept in localStorage.
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
