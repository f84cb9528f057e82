// The table's cues beyond its drawing, from each message: chips that move (the bets to the pot
// when a betting round closes, the pot to each winner), the sound of each action, and "your
// turn" (its sound, and the tab's title, icon and notification while the tab is hidden).
// None of it delays anything: the state is applied and drawn at once, the chips in flight are
// drawn over it for a moment.
import { actionSound, turnSound } from './sound.js';
import { turnOptions } from './speech.js';

// How long each flight moves (app.css), in ms. It is taken off a few frames after it landed,
// counted from the frame that first drew it (a late frame would cut it short), before its CSS
// animation ends (a still, unseen tail): the browser serves the last moments of an animation
// on the page's main thread in every frame (traced unlocked: a frame every 1.5 ms for its last
// 25 ms, about 20 frames at each landing, 30 a second at a quick table).
const MOVES = { 'to-pot': 300, 'to-seat': 400 };
const GONE = 50;
const FRAME = 16; // flights landing within a frame of each other are taken off together
const UNDRAWN = 1000; // a flight no frame drew in this long is dropped (a redraw that never came)
const SOUND = { fold: 'fold', check: 'check', call: 'bet', bet: 'bet', raise: 'bet' };

export class Cues {
  constructor(settings, redraw) {
    this.settings = settings;
    this.redraw = redraw;
    this.flights = []; // [{id, kind: 'to-pot' | 'to-seat', seat, amount, at, until}] (until: once drawn)
    this.nextId = 1;
    this.timer = 0;
    this.wonIn = null; // the hand whose win was heard (one chord for all its awards)
    this.alert = null; // the turn alert (notify.js), once the tab has been hidden: `alertWhenHidden`
    this.missed = null; // what its notification would have said, while it was on its way
    this.alertWhenHidden();
    this.still = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;
  }

  // The turn alert works only while the tab is hidden: its code is fetched once the tab is
  // hidden (a turn that began while it was on its way is told when it is here).
  alertWhenHidden() {
    const hidden = () => {
      if (!document.hidden) return;
      document.removeEventListener('visibilitychange', hidden);
      import('./notify.js').then(({ TurnAlert }) => {
        this.alert = new TurnAlert();
        if (this.missed != null) this.alert.update(true, true, this.missed, this.settings);
        this.missed = null;
      }, () => document.addEventListener('visibilitychange', hidden));
    };
    document.addEventListener('visibilitychange', hidden);
    hidden();
  }

  moving() {
    return !!this.settings.animations && !(this.still && this.still.matches);
  }

  // Before the event is applied: the bets are still in front of the players.
  before(state, ev) {
    const h = state && state.hand;
    if (!h || ev.hand !== h.id || !this.moving()) return;
    if (ev.type === 'pots') {
      Object.values(h.players).forEach((p) => { if (p.bet > 0) this.fly('to-pot', p.seat, p.bet); });
    } else if (ev.type === 'award' && ev.amount > 0) this.fly('to-seat', ev.seat, ev.amount);
  }

  // Each flight is taken off once it has landed: at a quick table (bets gathered every few
  // hundred ms) one timer restarted by each new flight kept every flight of the evening in the
  // page, each a layer that every later frame composited again.
  fly(kind, seat, amount) {
    const now = performance.now();
    this.flights = this.flights.filter((f) => this.flying(f, now));
    this.flights.push({ id: this.nextId++, kind, seat, amount, at: now, until: 0 });
  }

  flying(f, now) {
    return f.until ? f.until > now + FRAME : now - f.at < UNDRAWN;
  }

  // The view, as it draws the flights: those drawn for the first time begin to move now.
  drawn() {
    const now = performance.now();
    const fresh = this.flights.filter((f) => !f.until);
    fresh.forEach((f) => { f.until = now + MOVES[f.kind] + GONE; });
    if (fresh.length) this.land();
  }

  land() {
    clearTimeout(this.timer);
    const drawn = this.flights.filter((f) => f.until);
    if (!drawn.length) return;
    const wait = Math.min(...drawn.map((f) => f.until)) - performance.now();
    this.timer = setTimeout(() => {
      const now = performance.now();
      this.flights = this.flights.filter((f) => this.flying(f, now));
      this.redraw();
      this.land();
    }, Math.max(0, wait));
  }

  // After it: the sounds, and the turn alert (`turn`: it is the viewer's turn now; `fresh`:
  // this message began it).
  after(state, ev, turn, fresh) {
    const st = this.settings;
    if (st.actionSounds && ev.type === 'acted' && SOUND[ev.action]) actionSound(SOUND[ev.action]);
    if (st.actionSounds && ev.type === 'award' && this.wonIn !== ev.hand) {
      this.wonIn = ev.hand;
      actionSound('win');
    }
    if (fresh && st.sound) turnSound();
    const h = state && state.hand;
    const text = fresh && h && h.legal ? `${state.table.config.name}: ${turnOptions(state, h.legal, h.phase)}` : '';
    if (this.alert) this.alert.update(turn, fresh, text, st);
    else this.missed = turn ? (fresh ? text : this.missed) : null;
  }
}
