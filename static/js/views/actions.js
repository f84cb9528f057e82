// What the viewer can do now: the legal actions with the server's exact amounts, or
// pre-actions before the turn comes.
import { html } from '../html.js';
import { toCall } from '../table-state.js';
import { notice } from './notices.js';
import { cardName, cardsShort } from '../speech.js';

const cardText = (c) => cardsShort([c]);

export function actionsView(ctrl) {
  const s = ctrl.state;
  const h = s.hand;
  if (ctrl.isMyTurn()) {
    if (h.phase === 'run-it-twice') return voteView(ctrl);
    if (h.phase === 'showdown') return showdownView(ctrl);
    return html`${bettingView(ctrl)}${preferencesView(ctrl)}`;
  }
  if (ctrl.inHand() && h.phase === 'betting') {
    const p = h.players[s.you.seat];
    if (!p.all_in) return html`${preView(ctrl)}${switchesView(ctrl)}${preferencesView(ctrl)}`;
  }
  if (h && h.ended && (h.canShow || afterHandOpen(ctrl))) {
    return html`${h.canShow ? showWinView(ctrl) : null}${afterHandView(ctrl)}${switchesView(ctrl)}${preferencesView(ctrl)}`;
  }
  return html`${rebuyView(ctrl)}${straddleView(ctrl)}${switchesView(ctrl)}${preferencesView(ctrl)}`;
}

// Out of chips (and not in a hand): buy in again right here, within the table's limits.
function rebuyView(ctrl) {
  const s = ctrl.state;
  const seat = s.you.seat != null ? s.seats[s.you.seat] : null;
  if (!seat || seat.stack > 0 || s.table.config.tournament || ctrl.inHand()) return null;
  const [low, high] = ctrl.rebuyRange();
  const amount = ctrl.ui.rebuy != null ? ctrl.ui.rebuy : high;
  const set = (e) => { ctrl.ui.rebuy = e.target.value; ctrl.redraw(); };
  return html`<form class="actions rebuy" aria-label="Rebuy" onSubmit=${(e) => { e.preventDefault(); ctrl.rebuy(); }}>
    <p>${notice('busted', { low, high })}</p>
    <div class="amount-row">
      <input type="range" class="slider" min=${low} max=${high} step="1" value=${amount} aria-label="Rebuy amount" onInput=${set} />
      <input type="number" class="amount" name="rebuy" inputmode="numeric" min=${low} max=${high} value=${amount}
        aria-label=${`Rebuy, ${low} to ${high}`} onInput=${set} />
    </div>
    <div class="row"><button type="submit" class="btn act check" data-cmd="rebuy">Rebuy ${amount}</button></div>
  </form>`;
}

// Won without a call: the winner may show once before the next hand.
function showWinView(ctrl) {
  const h = ctrl.state.hand;
  return html`<div class="actions show-win">
    <p>Nobody called. Show your hand?</p>
    <div class="row">${btn('Show my hand', { 'data-act': 'show-win' }, () => ctrl.command('show', { hand: h.id }), 'check')}</div>
  </div>`;
}

// After a hand, until the next: the rabbit hunt (any seated player, where the table hunts)
// and, to the winner nobody called, any of their cards to show one by one.
function afterHandOpen(ctrl) {
  const h = ctrl.state.hand;
  const seated = ctrl.state.you.seat != null && !ctrl.state.replay;
  return seated && (h.rabbitOpen || (h.showCards && h.showCards.length > 0));
}

function afterHandView(ctrl) {
  const h = ctrl.state.hand;
  if (!afterHandOpen(ctrl)) return null;
  const cards = h.showCards || [];
  return html`<div class="actions after-hand" aria-label="After the hand">
    ${cards.length ? html`<p>Show a card? The others stay hidden.</p>` : null}
    <div class="row">
      ${cards.map((c) => btn(html`Show ${cardText(c)}`, { 'data-show-card': c, 'aria-label': `Show ${cardName(c)}` },
        () => ctrl.command('show_cards', { hand: h.id, cards: [c] }), 'check'))}
      ${h.rabbitOpen ? btn('Rabbit hunt', { 'data-act': 'rabbit', title: 'See the cards that would have come (not played)' },
        () => ctrl.command('rabbit_hunt', { hand: h.id }), 'call') : null}
    </div>
  </div>`;
}

// The seated player's sit-out switches (the server keeps them on the seat); none at a
// tournament table (it refuses them: the clock blinds an absent player away).
function switchesView(ctrl) {
  const s = ctrl.state;
  const seat = s.you.seat != null ? s.seats[s.you.seat] : null;
  if (!seat || seat.status === 'sitting_out' || s.table.config.tournament) return null;
  const sw = (key, label) => {
    const on = ctrl.switchOn(seat, key);
    return html`<label class=${`btn pre ${on ? 'on' : ''}`} data-switch=${key}>
      <input type="checkbox" checked=${on} onChange=${(e) => ctrl.setSwitch(key, e.target.checked)} />${label}</label>`;
  };
  return html`<div class="row switches" aria-label="Sitting out">
    ${sw('sit_out_next', 'Sit out next hand')}
    ${sw('sit_out_next_bb', 'Sit out at my next big blind')}
  </div>`;
}

// The seated player's showdown preferences (kept with the seat): the server mucks a beaten
// hand at once (auto-muck, on by default) or shows every hand at once (always show); a hand
// that must be shown is shown by the server whatever they say.
function preferencesView(ctrl) {
  const s = ctrl.state;
  const prefs = s.you.preferences;
  if (s.you.seat == null || !prefs) return null;
  const sw = (key, label) => {
    const on = ctrl.preferenceOn(key);
    return html`<label class=${`btn pref ${on ? 'on' : ''}`} data-preference=${key}>
      <input type="checkbox" checked=${on} onChange=${(e) => ctrl.setPreference(key, e.target.checked)} />${label}</label>`;
  };
  return html`<div class="row switches preferences" aria-label="At the showdown">
    ${sw('auto_muck', 'Auto-muck losing hands')}
    ${sw('always_show', 'Always show my hand')}
  </div>`;
}

// The short clock of a show-or-muck choice or a run-it-twice vote (showdown_time): seconds
// left, redrawn each second with the ring; the time bank is not used for these.
function shortClockView(h) {
  if (h.stopped && h.timeout != null) {
    const left = Math.max(0, Math.ceil(h.timeout));
    return html`<p class="short-clock stopped" data-short-clock=${left} data-clock-stopped=${left} role="timer">${left} s to decide · clock stopped</p>`;
  }
  if (!h.deadline || h.timeout == null) return null;
  const left = Math.max(0, Math.ceil((h.deadline - performance.now()) / 1000));
  return html`<p class="short-clock" data-short-clock=${left} role="timer">${left} s to decide · no time bank</p>`;
}

function btn(label, attrs, onClick, cls = '') {
  return html`<button type="button" class=${`btn act ${cls}`} ...${attrs} onClick=${onClick}>${label}</button>`;
}

function bettingView(ctrl) {
  const h = ctrl.state.hand;
  const legal = h.legal;
  const busy = !!ctrl.pending;
  const can = (k) => legal.actions.includes(k);
  const kind = ctrl.wagerKind();
  if (ctrl.ui.confirmFold) {
    return html`<div class="actions confirm" role="alertdialog" aria-label="Fold when checking is free?">
      <p>Checking is free. Fold anyway?</p>
      <div class="row">
        ${btn('Fold', { 'data-act': 'confirm-fold', disabled: busy }, () => ctrl.act('fold'), 'fold')}
        ${btn('Check', { 'data-act': 'check', disabled: busy }, () => ctrl.act('check'), 'check')}
      </div>
    </div>`;
  }
  const amount = ctrl.ui.amount;
  const fixed = kind && legal.min_to === legal.max_to;
  const label = kind === 'bet' ? 'Bet' : 'Raise to';
  const allIn = kind && amount === legal.max_to;
  const presets = kind && !fixed ? [['Min', legal.min_to, 'min'], ['½ pot', ctrl.presetAmount(0.5), 'half'],
    ['¾ pot', ctrl.presetAmount(0.75), 'three-quarters'], ['Pot', legal.pot_to, 'pot'], ['All in', legal.max_to, 'all-in']] : [];
  // One button lit: the one chosen, else the first that gives the amount (Min and ½ pot are
  // often the same figure).
  const chosen = presets.find(([, v, n]) => n === ctrl.ui.preset && v === amount) || presets.find(([, v]) => v === amount);
  return html`<div class=${`actions betting ${busy ? 'busy' : ''}`} data-counter=${h.counter}>
    ${kind && !fixed ? html`<div class="sizing">
      <div class="presets">
        ${presets.map(([label, value, name]) => presetBtn(ctrl, label, value, name, chosen && chosen[2] === name))}
      </div>
      <div class="amount-row">
        <input type="range" class="slider" min=${legal.min_to} max=${legal.max_to} step="1" value=${amount}
          aria-label="Amount" onInput=${(e) => ctrl.setAmount(e.target.value)} />
        <input id="amount" type="number" class="amount" inputmode="numeric" min=${legal.min_to} max=${legal.max_to}
          value=${ctrl.ui.amountText != null ? ctrl.ui.amountText : String(amount ?? '')} aria-label="Amount to bet to"
          onFocus=${() => { ctrl.ui.raising = true; }}
          onInput=${(e) => ctrl.typeAmount(e.target.value)}
          onChange=${(e) => ctrl.setAmount(e.target.value)} />
      </div>
    </div>` : null}
    <div class="row main-actions">
      ${can('fold') ? btn('Fold', { 'data-act': 'fold', disabled: busy, title: 'f' }, () => ctrl.fold(), 'fold') : null}
      ${can('check') ? btn('Check', { 'data-act': 'check', disabled: busy, title: 'c' }, () => ctrl.act('check'), 'check') : null}
      ${can('call') ? btn(`Call ${legal.call}`, { 'data-act': 'call', disabled: busy, title: 'c' }, () => ctrl.act('call'), 'call') : null}
      ${kind ? btn(fixed ? `${kind === 'bet' ? 'Bet' : 'Raise to'} ${legal.min_to}` : `${allIn ? 'All in' : label} ${amount}`,
        { 'data-act': kind, 'data-amount': amount, disabled: busy, title: 'r, then Enter' },
        () => { if (fixed) ctrl.ui.amount = legal.min_to; ctrl.wager(); }, `raise ${ctrl.ui.raising ? 'armed' : ''}`) : null}
    </div>
    ${busy ? html`<p class="sending">Sending…</p>` : html`<p class="keys">Keys: f fold · c check/call · r raise · a all in · Enter confirm · Esc cancel</p>`}
    ${h.timeBank != null && h.timeout != null ? html`<div class="row bank-row">
      <p class=${`bank ${h.inBank ? 'on' : ''}`}>${h.inBank ? (h.stopped ? `Time bank ${Math.ceil(h.timeout)} s · clock stopped` : 'Time bank running') : `Time bank ${Math.round(h.timeBank)} s`}</p>
      ${!h.inBank && !h.stopped && h.timeBank > 0 ? html`<button type="button" class="btn small" data-cmd="more-time" onClick=${() => ctrl.command('more_time')}>Need more time</button>` : null}
    </div>` : null}
  </div>`;
}

const PRESET_NAMES = { min: 'Minimum', half: 'Half pot', 'three-quarters': 'Three quarters pot', pot: 'Pot', 'all-in': 'All in' };

function presetBtn(ctrl, label, value, name, active) {
  return html`<button type="button" class=${`btn preset ${active ? 'on' : ''}`} data-preset=${name} data-value=${value}
    aria-label=${`${PRESET_NAMES[name]}: ${value}`} aria-pressed=${!!active}
    onClick=${() => { ctrl.ui.raising = true; ctrl.setAmount(value, name); }}>${label}</button>`;
}

// A hand the rules let you muck may instead be shown card by card, one click a card (the
// server keeps each as a note; the turn stays yours on the same short clock): Muck then
// hides the rest from everyone; showing the last card is the whole show.
function showdownView(ctrl) {
  const s = ctrl.state;
  const h = s.hand;
  const legal = h.legal;
  const busy = !!ctrl.pending;
  const muck = legal.actions.includes('muck');
  const me = h.players[s.you.seat] || {};
  const shown = me.shownCards || [];
  const hidden = muck ? (me.cards || []).filter((c) => !shown.includes(c)) : [];
  return html`<div class="actions showdown">
    <p>Showdown: show your hand${muck ? ' or muck it' : ''}?${muck ? html` <span class="hint">Or show some cards: the rest stay hidden.</span>` : null}</p>
    <div class="row">
      ${legal.actions.includes('show') ? btn('Show', { 'data-act': 'show', disabled: busy }, () => ctrl.act('show'), 'check') : null}
      ${muck ? btn(shown.length ? 'Muck the rest' : 'Muck', { 'data-act': 'muck', disabled: busy }, () => ctrl.act('muck'), 'fold') : null}
    </div>
    ${hidden.length ? html`<div class="row show-some" aria-label="Show some cards">
      ${hidden.map((c) => btn(html`Show ${cardText(c)}`, { 'data-show-card': c, 'aria-label': `Show ${cardName(c)}` },
        () => ctrl.command('show_cards', { hand: h.id, cards: [c] }), 'call'))}
    </div>` : null}
    ${shortClockView(ctrl.state.hand)}
    ${preferencesView(ctrl)}
  </div>`;
}

function voteView(ctrl) {
  const busy = !!ctrl.pending;
  return html`<div class="actions vote">
    <p>Everyone is all in. Run it twice?</p>
    <div class="row">
      ${btn('Run it twice', { 'data-act': 'run-twice-yes', disabled: busy }, () => ctrl.act('run-twice', { agree: true }), 'check')}
      ${btn('Once', { 'data-act': 'run-twice-no', disabled: busy }, () => ctrl.act('run-twice', { agree: false }), 'fold')}
    </div>
    ${shortClockView(ctrl.state.hand)}
  </div>`;
}

function preView(ctrl) {
  const s = ctrl.state;
  const h = s.hand;
  const owe = toCall(h, s.you.seat);
  const pre = ctrl.pre ? ctrl.pre.kind : null;
  const opt = (kind, label) => html`<label class=${`btn pre ${pre === kind ? 'on' : ''}`} data-pre=${kind}>
    <input type="checkbox" checked=${pre === kind} onChange=${() => ctrl.setPre(kind)} />${label}</label>`;
  return html`<div class="actions pre" aria-label="Pre-actions">
    <div class="row">
      ${opt('check_fold', owe ? 'Fold' : 'Check / fold')}
      ${owe ? opt('call', `Call ${owe}`) : opt('check', 'Check')}
      ${opt('call_any', 'Call any')}
    </div>
  </div>`;
}

function straddleView(ctrl) {
  const s = ctrl.state;
  const seat = s.you.seat != null ? s.seats[s.you.seat] : null;
  if (!seat || !s.table.config.straddle || s.table.config.tournament) return null;
  return html`<div class="actions extra">
    <label class="btn pre ${ctrl.switchOn(seat, 'straddle') ? 'on' : ''}" data-cmd="straddle">
      <input type="checkbox" checked=${ctrl.switchOn(seat, 'straddle')} onChange=${(e) => ctrl.setSwitch('straddle', e.target.checked)} />
      Straddle when first after the big blind
    </label>
  </div>`;
}
