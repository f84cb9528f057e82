// Reactions on the seats (issue 26, item 14): a seated player picks one of a fixed set, the
// server sends it to everyone at the table (`reaction`: seat, player, name), and each page
// shows it on that seat for a few seconds. Drawn from SVG pictures (Twemoji, vendored with
// its licence in static/vendor/twemoji), not from a font: the fonts of many Linux desktops,
// this server's test machines among them, have no emoji and draw a box.
// Not shown: a player the viewer muted in the chat, or every reaction when the viewer turned
// them off (the "Reactions on the seats" setting).

export const SHOW_MS = 3500;

// name (the server's, app/tables/config.py REACTIONS) -> [picture, what it says]
export const REACTIONS = {
  thumbs_up: ['1f44d', 'Thumbs up'],
  laugh: ['1f602', 'Laughing'],
  wow: ['1f62e', 'Wow'],
  cry: ['1f622', 'Crying'],
  clap: ['1f44f', 'Applause'],
  fire: ['1f525', 'On fire'],
};

export function reactionSrc(name) {
  return new URL(`../vendor/twemoji/${REACTIONS[name][0]}.svg`, import.meta.url).href;
}

export class Reactions {
  constructor(settings, redraw) {
    this.settings = settings;
    this.redraw = redraw;
    this.shown = new Map(); // seat -> {id, name, player_id}
    this.nextId = 1;
  }

  hear(m) {
    const st = this.settings;
    if (st.reactions === false || !REACTIONS[m.reaction]) return;
    if ((st.muted || []).includes(m.player_id)) return;
    const id = this.nextId++;
    this.shown.set(m.seat, { id, name: m.reaction, player_id: m.player_id });
    setTimeout(() => {
      const now = this.shown.get(m.seat);
      if (now && now.id === id) { this.shown.delete(m.seat); this.redraw(); }
    }, SHOW_MS);
  }

  // The reaction on `seat` now, if it is still that player's (a seat left and taken again
  // does not wear the last one's).
  on(seat, playerId) {
    const r = this.shown.get(seat);
    return r && r.player_id === playerId ? r : null;
  }
}
