// The table page's controller: owns the state, the socket and what the viewer is doing
// (amount, pre-action, dialogs). The view is rebuilt from it on each animation frame after
// a change (`redraw`), so a burst of messages costs one render.

import { notice } from './views/notices.js';
import { TableSocket } from './socket.js';
import { fromSnapshot, applyEvent, toCall } from './table-state.js';
import { saveSettings } from './settings.js';
import { lastHands } from './views/last-hands.js';
import { Narrator, statusText } from './speech.js';
import { rescueFocus, dropReturnFocus } from './focus.js';
import { DealCheck } from './fairness.js';
import { HandLog } from './hand-log.js';
import { Cues } from './cues.js';
import { Reactions } from './reactions.js';
import { tableKey } from './keys.js';
import { lazy } from './lazy.js';
import { NewVersion, busy } from './new-version.js';

// Fetched when first used (lazy.js): the ledger's tabs, the screen reader's commands, the
// replayer (its controller and its view at once: the panel draws as soon as both are here).
const ledgerTabs = lazy(() => import('./ledger-tabs.js'));
const commands = lazy(() => import('./commands.js'));
const replayer = lazy(() => Promise.all([import('./replay.js'), import('./views/replay.js')]));

export class TableCtrl {
  // `early`: the socket `boot.js` opened before this code loaded, if any.
  constructor(code, me, settings, redraw, early = null) {
    this.code = code;
    this.me = me;
    this.settings = settings;
    // After each change: a new version of the client waiting for a safe moment may reload now.
    this.redraw = () => { redraw(); this.newVersion.check(); };
    this.newVersion = new NewVersion(() => busy(this), (text) => { this.flash(text); redraw(); });
    this.state = null;
    this.conn = 'connecting';
    this.ui = {
      amount: null, amountText: null, amountFor: null, raising: false, confirmFold: false, dialog: null,
      sitSeat: null, buyIn: null, post: false, topUp: null, message: null, hostStakes: {},
      preset: null, rebuy: null,
    };
    this.pre = null; // {kind, hand, street, toCall}
    this.pending = null; // {id, hand, counter, label}
    this.switching = {}; // switch -> {on, id}: asked of the server, not answered yet
    this.nextId = 1;
    this.narrator = new Narrator(); // the screen-reader mode's live region
    this.log = new HandLog(code); // the running hand log, in the same sentences
    this.cues = new Cues(settings, redraw); // chips in flight, sounds, the turn alert
    this.reactions = new Reactions(settings, redraw); // on the seats, for a moment
    window.addEventListener('pagehide', () => this.log.save());
    this.requests = new Map(); // id -> what it was, for its reply
    this.deals = new DealCheck({ code, redraw: () => this.redraw(), sendSeed: (seed) => this.request({ type: 'seed', seed }) });
    this.early = early;
    this.handlers = { onMessage: (m) => this.receive(m), onStatus: (s) => this.status(s) };
    this.socket = early ? early.socket : new TableSocket(code, this.handlers);
    if (settings.screenReader) commands().catch(() => {});
    this.ticker = setInterval(() => { if (this.state && this.state.hand && this.state.hand.deadline) this.redraw(); }, 1000);
  }

  start() {
    if (this.early) this.early.handTo(this.handlers);
    else this.socket.connect();
  }

  status(s) {
    // Back after a drop with an action sent but not answered: send it again. Applied before
    // the drop, the server refuses it as a duplicate; lost on the way, it is applied now.
    if (s === 'open' && this.conn !== 'open' && this.pending && !this.socket.queue.includes(this.pending.message)) {
      this.socket.send(this.pending.message);
    }
    this.conn = s;
    this.redraw();
  }

  // ---------------------------------------------------------------- messages
  receive(m) {
    if (m.type === 'client_version') { this.newVersion.heard(m.current); return; } // (no seq)
    const speaking = this.settings.screenReader;
    if (m.type === 'snapshot') {
      this.state = fromSnapshot(m);
      this.switching = {}; // (a resync: what was asked and not answered shows as it stands)
      if (this.state.table.config.tournament && this.onTournament) this.onTournament(); // main.js
      // Asked once the table answers (a link to no table asks nothing: a 404 in the console),
      // and again after a resync, which may follow hands missed.
      lastHands.load(this.code, this.redraw);
      this.log.joined(this.state);
      if (speaking) this.narrator.say(statusText(this.state));
    } else if (m.type === 'ok' || m.type === 'error') {
      this.reply(m);
    } else if (m.type === 'pong') {
      return;
    } else if (this.state) {
      if (m.type === 'timed_out') this.timedOut(m);
      if (m.type === 'reaction') this.reactions.hear(m);
      // read against the state before it
      this.log.hear(this.state, m);
      if (speaking) this.narrator.hear(this.state, m);
      this.cues.before(this.state, m);
      applyEvent(this.state, m);
      if (m.type === 'seat_refused' && m.player_id === this.state.you.player_id) this.flash(notice('request_refused'));
    }
    this.deals.observe(m, this.state);
    this.afterChange(m);
    // A focused "Sit here" or action button may have been redrawn away.
    if (m.type === 'seat' || m.type === 'left' || (m.type === 'acted' && m.seat === this.mySeat())) rescueFocus();
    // The hand is stored as it ends; asked a moment later, the list has it.
    if (m.type === 'hand_ended') {
      setTimeout(() => lastHands.load(this.code, this.redraw), 400);
      this.log.save();
    }
    this.redraw();
  }

  reply(m) {
    const what = m.id != null ? this.requests.get(m.id) : null;
    if (m.id != null) this.requests.delete(m.id);
    if (this.pending && m.id === this.pending.id) this.pending = null;
    // answered (the seat's new state came before the answer): the switch shows the seat's
    if (what && this.switching[what.type] && this.switching[what.type].id === m.id) delete this.switching[what.type];
    if (what && what.type === 'set_preference') {
      Object.keys(this.switching).filter((k) => k.startsWith('pref:') && this.switching[k].id === m.id)
        .forEach((k) => delete this.switching[k]);
      if (m.type === 'ok' && this.state) this.state.you.preferences = { auto_muck: m.auto_muck, always_show: m.always_show };
    }
    if (m.type === 'error') {
      if (m.code === 'duplicate') return; // sent twice across a reconnect: applied once
      if (['stale_counter', 'stale_hand', 'not_your_turn', 'hand_over'].includes(m.code) && what && what.type === 'act') {
        this.flash(`The turn had passed: your ${what.action} was not applied.`);
        return;
      }
      this.flash(m.message || m.code);
      return;
    }
    if (what && what.type === 'sit' && m.status === 'requested') this.flash('Asked the host for the seat: waiting for approval.');
    if (what && what.type === 'cancel_request') this.flash(notice('request_cancelled'));
    if (what && what.type === 'top_up' && m.status === 'after_hand') this.flash('Top-up added after this hand.');
    if (what && what.type === 'top_up' && m.status === 'done') this.flash(`Added ${what.amount} chips.`);
    if (what && what.type === 'leave' && m.status === 'after_hand') this.flash('You leave after this hand.');
    if (what && what.type === 'set_stakes') this.flash(m.from_next_hand ? 'New stakes from the next hand.' : 'New stakes now.');
    if (what && what.type === 'adjust') this.flash(m.after_hand || m.status === 'after_hand' ? 'Stack adjusted after this hand.' : 'Stack adjusted.');
    if (what && what.type === 'pause') this.flash(notice('paused')); // the banner's words
    if (what && what.type === 'remove') this.flash('Removed (after the hand in play, if any).');
    if (what && what.type === 'close') this.flash('Closing the table (after the hand in play, if any).');
    if (what && what.type === 'rotate_seed') this.flash(m.revealed ? 'Seed revealed: every deal so far can be checked. A new seed deals from the next hand.' : 'A new seed deals from the next hand.');
  }

  // The clock acted for a player on `timeouts` decisions in a row: they sit out after the
  // hand (their seat says so too: its mark, and their own note).
  timedOut(m) {
    if (m.player_id === this.state.you.player_id) {
      this.flash(`You timed out on ${m.timeouts} decisions in a row: you sit out from the next hand. Untick “Sit out next hand” to stay in, or sit in later.`);
    } else {
      this.flash(`${m.name} timed out: sits out from the next hand.`);
    }
  }

  flash(text) {
    if (this.settings.screenReader) this.narrator.say(text);
    this.ui.message = text;
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { this.ui.message = null; this.redraw(); }, 5000);
  }

  afterChange(m) {
    const s = this.state;
    if (!s) return;
    const h = s.hand;
    const me = s.you.seat;
    const myTurn = this.isMyTurn();
    if (myTurn && this.ui.amountFor !== `${h.id}:${h.counter}`) {
      this.ui.amountFor = `${h.id}:${h.counter}`;
      this.ui.amount = h.legal.min_to != null ? h.legal.min_to : null;
      this.ui.amountText = null;
      this.ui.preset = null;
      this.ui.raising = false;
      this.ui.confirmFold = false;
    }
    if (!myTurn) { this.ui.confirmFold = false; this.ui.raising = false; }
    // No pre-action survives a new street; "check" and "call N" do not survive a change in
    // the amount to call either (check/fold and call any are meant for exactly that).
    if (this.pre) {
      const p = h && h.players[me];
      const sticky = this.pre.kind === 'check_fold' || this.pre.kind === 'call_any';
      if (!h || h.id !== this.pre.hand || h.street !== this.pre.street || !p || p.folded || h.ended
          || (!sticky && toCall(h, me) !== this.pre.toCall)) this.pre = null;
    }
    if (myTurn && h.phase === 'betting' && this.pre && !this.pending) {
      const pre = this.pre;
      this.pre = null;
      const can = (k) => h.legal.actions.includes(k);
      if (pre.kind === 'check_fold') return this.act(can('check') ? 'check' : 'fold');
      if (pre.kind === 'check' && can('check')) return this.act('check');
      if (pre.kind === 'call' && can('call') && h.legal.call === pre.toCall) return this.act('call');
      if (pre.kind === 'call_any') return this.act(can('call') ? 'call' : 'check');
    }
    const fresh = m.type === 'turn' && myTurn && !m.in_time_bank && !h.clockNews;
    if (fresh) this.turnBegins();
    this.cues.after(s, m, myTurn, fresh);
  }

  // Nothing covers the dock on the viewer's turn: an open dialog or menu closes, saying why.
  turnBegins() {
    if (this.ui.menuOpen) this.ui.menuOpen = false;
    if (!this.ui.dialog) return;
    this.ui.dialog = null;
    dropReturnFocus(); // the focus goes to the actions, not back to what opened the dialog
    this.flash('Your turn: the dialog was closed.');
  }

  // ---------------------------------------------------------------- reading
  mySeat() { return this.state ? this.state.you.seat : null; }

  isMyTurn() {
    const s = this.state;
    const h = s && s.hand;
    return !!(h && !h.ended && h.legal && h.actor === s.you.seat && s.you.seat != null);
  }

  inHand() {
    const s = this.state;
    const h = s && s.hand;
    const p = h && s.you.seat != null && h.players[s.you.seat];
    return !!(p && !h.ended && !p.folded && !p.mucked);
  }

  // ---------------------------------------------------------------- sending
  request(message) {
    const id = `${Date.now().toString(36)}-${this.nextId++}`; // unique across reloads
    const sent = { ...message, id };
    this.requests.set(id, message);
    this.socket.send(sent);
    return sent;
  }

  act(action, extra = {}) {
    const h = this.state && this.state.hand;
    if (!h || !this.isMyTurn() || this.pending) return; // no double submission
    const message = { type: 'act', hand: h.id, counter: h.counter, action, ...extra };
    const sent = this.request(message);
    this.pending = { id: sent.id, hand: h.id, counter: h.counter, action, message: sent };
    this.ui.confirmFold = false;
    this.ui.raising = false;
    this.redraw();
  }

  fold() {
    const h = this.state.hand;
    if (!this.isMyTurn() || h.phase !== 'betting') return;
    if (h.legal.actions.includes('check') && !this.ui.confirmFold) {
      this.ui.confirmFold = true; // folding when checking is free: ask once
      this.redraw();
      return;
    }
    this.act('fold');
  }

  checkOrCall() {
    const h = this.state.hand;
    if (!this.isMyTurn() || h.phase !== 'betting') return;
    if (h.legal.actions.includes('check')) this.act('check');
    else if (h.legal.actions.includes('call')) this.act('call');
  }

  wagerKind() {
    const h = this.state && this.state.hand;
    if (!h || !h.legal) return null;
    if (h.legal.actions.includes('bet')) return 'bet';
    if (h.legal.actions.includes('raise')) return 'raise';
    return null;
  }

  // `preset`: the sizing button chosen (lit alone when two give the same amount).
  setAmount(value, preset = null) {
    const h = this.state.hand;
    if (!h || !h.legal || h.legal.min_to == null) return;
    const n = Math.round(Number(value));
    this.ui.amount = Number.isFinite(n) ? legalAmount(h.legal, n) : h.legal.min_to;
    this.ui.amountText = null;
    this.ui.preset = preset;
    this.redraw();
  }

  // A key typed in the amount box. The box keeps the text as typed (a redraw for a message
  // that arrives mid-typing must not put the last amount back under the player's fingers),
  // and what Enter sends follows it, within the legal range; leaving the box shows that.
  typeAmount(text) {
    const h = this.state.hand;
    if (!h || !h.legal || h.legal.min_to == null) return;
    this.ui.amountText = text;
    const n = Math.round(Number(text));
    if (text !== '' && Number.isFinite(n)) this.ui.amount = legalAmount(h.legal, n);
    this.ui.preset = null;
    this.redraw();
  }

  // A fraction of the pot, from the server's exact pot-size figure: raise to the call,
  // then `fraction` of what the pot would be after calling.
  presetAmount(fraction) {
    const h = this.state.hand;
    const legal = h.legal;
    const mine = h.players[this.mySeat()];
    const callTo = (mine ? mine.bet : 0) + (legal.call || 0);
    const raw = callTo + Math.floor((legal.pot_to - callTo) * fraction);
    return legalAmount(legal, raw);
  }

  wager() {
    const kind = this.wagerKind();
    if (!kind || this.ui.amount == null) return;
    this.act(kind, { amount: this.ui.amount });
  }

  setPre(kind) {
    const s = this.state;
    const h = s.hand;
    if (this.pre && this.pre.kind === kind) { this.pre = null; this.redraw(); return; }
    this.pre = { kind, hand: h.id, street: h.street, toCall: toCall(h, s.you.seat) };
    this.redraw();
  }

  // ---------------------------------------------------------------- seats
  openSit(seat) {
    const c = this.state.table.config;
    this.ui.dialog = 'sit';
    this.ui.sitSeat = seat;
    this.ui.buyIn = c.buy_in_max;
    this.ui.post = false;
    this.redraw();
  }

  sit() {
    const c = this.state.table.config;
    const buyIn = Math.max(c.buy_in_min, Math.min(c.buy_in_max, Math.round(Number(this.ui.buyIn))));
    this.request({ type: 'sit', seat: this.ui.sitSeat, buy_in: buyIn, post: !!this.ui.post });
    this.ui.dialog = null;
    this.redraw();
  }

  openTopUp() {
    const s = this.state;
    const seat = s.seats[s.you.seat];
    const room = s.table.config.buy_in_max - (seat ? seat.stack : 0);
    if (room <= 0) { this.flash('Your stack is already at the maximum buy-in.'); this.redraw(); return; }
    this.ui.dialog = 'topup';
    this.ui.topUp = room;
    this.redraw();
  }

  topUp() {
    const n = Math.round(Number(this.ui.topUp));
    if (n > 0) this.request({ type: 'top_up', amount: n });
    this.ui.dialog = null;
    this.redraw();
  }

  // Out of chips: buy in again from the dock, within the table's buy-in range (a top-up of
  // an empty stack).
  rebuyRange() {
    const c = this.state.table.config;
    return [Math.max(1, c.buy_in_min), c.buy_in_max];
  }

  rebuy() {
    const [low, high] = this.rebuyRange();
    const n = Math.max(low, Math.min(high, Math.round(Number(this.ui.rebuy != null ? this.ui.rebuy : high))));
    this.ui.rebuy = null;
    this.request({ type: 'top_up', amount: n });
    this.redraw();
  }

  command(type, extra = {}) { this.request({ type, ...extra }); rescueFocus(); }

  // A switch the server keeps (the sit-out switches, the straddle, the host's spectator chat)
  // shows what was asked until the server answers: drawn from the state alone, any redraw
  // meanwhile (the clock's, another seat's news) would flip it back for a moment.
  setSwitch(key, on) {
    const sent = this.request({ type: key, on });
    this.switching[key] = { on, id: sent.id };
    this.redraw();
  }

  // The showdown preferences: asked of the server, shown as asked until it answers.
  setPreference(key, on) {
    const sent = this.request({ type: 'set_preference', [key]: on });
    this.switching[`pref:${key}`] = { on, id: sent.id };
    this.redraw();
  }

  preferenceOn(key) {
    const asked = this.switching[`pref:${key}`];
    const prefs = this.state.you.preferences || {};
    return asked ? asked.on : !!prefs[key];
  }

  // `holder`: the seat, or the table's config; `unset`: its value when the holder lacks it.
  switchOn(holder, key, unset = false) {
    const asked = this.switching[key];
    if (asked) return asked.on;
    return holder[key] == null ? unset : !!holder[key];
  }

  // ---------------------------------------------------------------- chat
  sendChat() {
    const text = (this.ui.chat || '').trim();
    if (!text) return;
    this.request({ type: 'chat', text: text.slice(0, 200) });
    this.ui.chat = '';
    this.redraw();
  }

  react(name) {
    this.ui.reacting = false;
    this.request({ type: 'react', reaction: name });
    this.redraw();
  }

  mute(playerId, on) {
    const muted = new Set(this.settings.muted || []);
    if (on) muted.add(playerId); else muted.delete(playerId);
    this.setSetting('muted', [...muted]);
  }

  // ---------------------------------------------------------------- ledger (ledger-tabs.js)
  openLedger() {
    this.ui.dialog = 'ledger';
    this.redraw();
    return ledgerTabs().then((m) => m.openLedger(this));
  }

  ledgerTab(name) {
    this.ui.ledgerTab = name; // (drawn at once; its figures follow)
    return ledgerTabs().then((m) => m.showLedgerTab(this, name));
  }

  copyPayments() {
    return ledgerTabs().then((m) => { m.copyPayments(this.ui.ledger); this.flash('Payments copied.'); this.redraw(); });
  }

  closeDialog() { this.ui.dialog = null; this.redraw(); }

  // ---------------------------------------------------------------- replayer panel
  // A finished hand replayed over the live table (which goes on underneath), by its number
  // at this table.
  async openReplay(n) {
    const [{ ReplayCtrl }] = await replayer();
    if (this.replay) this.replay.close();
    this.replay = new ReplayCtrl({ at: { code: this.code, n } }, this.redraw, {
      panel: true, onClose: () => { this.replay = null; this.redraw(); },
    });
    this.replay.load();
    this.redraw();
  }

  async setSetting(key, value) {
    this.settings[key] = value;
    saveSettings(this.settings);
    if (key === 'notify' && value) {
      const { askNotifications } = await import('./notify.js');
      const answer = await askNotifications(); // asked from the click that turned it on
      if (answer !== 'granted') {
        this.settings.notify = false;
        saveSettings(this.settings);
        this.flash(answer === 'unsupported' ? 'This browser has no notifications.' : 'The browser blocks notifications from this page.');
      }
    }
    if (key === 'screenReader' && value) commands().catch(() => {}); // its command box's code
    if (key === 'screenReader' && value && this.state) this.narrator.say(statusText(this.state));
    this.redraw();
  }

  // ---------------------------------------------------------------- screen-reader mode
  setScreenReader(on) {
    // Straight to the command box, once it is drawn (views/screen-reader.js, which may still
    // be on its way).
    this.ui.focusCommand = on;
    this.setSetting('screenReader', on);
  }

  // (its code comes with the mode: at once, unless the mode was only just turned on)
  async runCommand(text) {
    if (!String(text).trim()) return;
    this.ui.commandText = '';
    const { runCommand } = await commands();
    this.narrator.say(runCommand(this, text));
    this.redraw();
  }

  // ---------------------------------------------------------------- keyboard
  key(e) {
    // The replayer's panel over the table has the keys while it is open.
    if (this.replay && !(e.ctrlKey || e.metaKey || e.altKey)) { this.replay.key(e); return; }
    tableKey(this, e);
  }
}

// An amount to bet or raise to, within the turn's legal range.
function legalAmount(legal, n) {
  return Math.max(legal.min_to, Math.min(legal.max_to, n));
}
