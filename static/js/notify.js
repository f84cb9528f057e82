// "Your turn" while the tab is hidden: the tab's title and icon say so and, when the player
// allowed it, a system notification; all of it goes when the turn ends or the tab is shown.
// Nothing while the tab is visible: the table itself says it.

const TITLE = document.title;
// The tab icon with a gold dot (a data: image: the page's policy allows `img-src data:`).
const TURN_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#15603f"/>'
  + '<text x="14" y="24" font-size="20" text-anchor="middle" fill="#fff">♠</text>'
  + '<circle cx="24" cy="8" r="7" fill="#f2c14e" stroke="#0b1410" stroke-width="2"/></svg>',
)}`;

export const notificationsAllowed = () => typeof Notification !== 'undefined' && Notification.permission === 'granted';

// Ask the browser (from the click that turned the setting on: it needs a user gesture).
export async function askNotifications() {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission !== 'default') return Notification.permission;
  try { return await Notification.requestPermission(); } catch { return 'denied'; }
}

export class TurnAlert {
  constructor() {
    this.on = false;
    this.note = null;
    this.icon = document.querySelector('link[rel~="icon"]');
    this.plainIcon = this.icon ? this.icon.getAttribute('href') : null;
    document.addEventListener('visibilitychange', () => { if (!document.hidden) this.clear(); });
  }

  // Called after every message: `turn` is true while it is this viewer's turn; `text` what a
  // notification says; `settings` the viewer's (titleBadge, notify).
  update(turn, fresh, text, settings) {
    if (!turn) { if (this.on) this.clear(); return; }
    if (!fresh || !document.hidden) return;
    this.on = true;
    if (settings.titleBadge) {
      document.title = `● Your turn · ${TITLE}`;
      if (this.icon) this.icon.setAttribute('href', TURN_ICON);
    }
    if (settings.notify && notificationsAllowed()) {
      if (this.note) this.note.close();
      try {
        this.note = new Notification('Your turn', { body: text, tag: 'omaha-turn', renotify: true });
        this.note.onclick = () => { window.focus(); if (this.note) this.note.close(); };
      } catch { this.note = null; } // Android's Chrome shows them only from a service worker
    }
  }

  clear() {
    this.on = false;
    if (document.title !== TITLE) document.title = TITLE;
    if (this.icon && this.plainIcon && this.icon.getAttribute('href') !== this.plainIcon) this.icon.setAttribute('href', this.plainIcon);
    if (this.note) { this.note.close(); this.note = null; }
  }
}
