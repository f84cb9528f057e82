// The host's panel, below the table, open; only the host's page draws it (the server refuses these
// commands from anyone else anyway). Every control sends one host command of the protocol.
import { html } from '../html.js';

// What the host may change from the next hand (set_stakes), as [setting, label].
export const STAKES = [['small_blind', 'Small blind'], ['big_blind', 'Big blind'], ['ante', 'Ante'],
  ['buy_in_min', 'Buy-in min'], ['buy_in_max', 'Buy-in max'], ['bomb_pot_every', 'Bomb pot every N hands (0: never)']];
// The switches of the same form, as [setting, label].
export const SWITCHES = [['straddle', 'Straddle allowed'], ['run_it_twice', 'Run it twice allowed'],
  ['rabbit_hunt', 'Rabbit hunt after a hand']];

function stakesText(c) {
  return `${c.small_blind}/${c.big_blind}${c.ante ? `, ante ${c.ante}` : ''}, buy-in ${c.buy_in_min} to ${c.buy_in_max}`
    + `${c.straddle ? ', straddle' : ''}${c.bomb_pot_every ? `, a bomb pot every ${c.bomb_pot_every === 1 ? 'hand' : `${c.bomb_pot_every} hands`}` : ''}`
    + `${c.run_it_twice ? ', run it twice' : ''}${c.rabbit_hunt ? ', rabbit hunt' : ''}`;
}

// The panel open (the table's view draws the folded one, and loads this module on opening).
export function hostView(ctrl) {
  const s = ctrl.state;
  const t = s.table;
  const c = t.config;
  const n = t.next_config;
  const others = s.seats.map((seat, i) => ({ seat, i })).filter(({ seat }) => seat && seat.player_id !== s.you.player_id);
  const seated = s.seats.map((seat, i) => ({ seat, i })).filter(({ seat }) => seat);
  const empty = s.seats.map((seat, i) => (seat ? null : i)).filter((i) => i != null);
  const ui = ctrl.ui;
  // A tournament table refuses the cash game's host commands (its director runs it): only the
  // invite, the deal seed and the spectators' chat are the host's there.
  const cash = !c.tournament;
  return html`<section class="host-panel" aria-label="Host">
    <div class="host-head">
      <h2>Host</h2>
      <button type="button" class="btn ghost" aria-expanded="true" onClick=${() => { ui.hostOpen = false; ctrl.redraw(); }}>Hide</button>
    </div>
    <div class="host-row">
      ${!cash ? null : t.paused
        ? html`<button type="button" class="btn" onClick=${() => ctrl.command('resume')}>Resume</button>`
        : html`<button type="button" class="btn" onClick=${() => ctrl.command('pause')}>Pause</button>`}
      ${!cash ? null : t.bomb_pot_next
        ? html`<button type="button" class="btn" aria-pressed="true" onClick=${() => ctrl.command('bomb_pot_next', { on: false })}>Bomb pot next hand: on</button>`
        : html`<button type="button" class="btn" aria-pressed="false" onClick=${() => ctrl.command('bomb_pot_next', { on: true })}>Bomb pot next hand</button>`}
      <button type="button" class="btn" onClick=${() => copyInvite(ctrl)}>Copy invite link</button>
      <button type="button" class="btn" disabled=${!!s.hand && !s.hand.ended}
        title=${c.reveal_seed === false ? 'Start a new server seed for the next hands (this table keeps seeds secret)' : 'Reveal this session\'s server seed, so everyone can check every deal so far, and start a new one'}
        onClick=${() => ctrl.command('rotate_seed')}>${c.reveal_seed === false ? 'New deal seed' : 'Reveal the deal seed'}</button>
      <label class="toggle"><input type="checkbox" name="spectator_chat" checked=${ctrl.switchOn(c, 'spectator_chat', true)}
        onChange=${(e) => ctrl.setSwitch('spectator_chat', e.target.checked)} /> Spectators may chat</label>
    </div>
    ${cash ? html`
    <form class="host-form" aria-label="Stakes" onSubmit=${(e) => { e.preventDefault(); setStakes(ctrl); }}>
      ${STAKES.map(([key, label]) => html`<label class="field">${label}
        <input type="number" name=${`host_${key}`} min="0" value=${key in ui.hostStakes ? ui.hostStakes[key] : (n || c)[key]}
          onInput=${(e) => { ui.hostStakes[key] = e.target.value; }} /></label>`)}
      ${SWITCHES.map(([key, label]) => html`<label class="toggle"><input type="checkbox" name=${`host_${key}`}
          checked=${key in ui.hostStakes ? ui.hostStakes[key] : !!(n || c)[key]}
          onChange=${(e) => { ui.hostStakes[key] = e.target.checked; ctrl.redraw(); }} /> ${label}</label>`)}
      <button type="submit" class="btn">Change stakes</button>
      <p class="hint" data-next-stakes>${n ? `From the next hand: ${stakesText(n)}.` : 'A change applies from the next hand.'}</p>
    </form>

    <form class="host-form" aria-label="Adjust a stack" onSubmit=${(e) => { e.preventDefault(); adjust(ctrl); }}>
      <label class="field">Player <select name="adjust_seat" onChange=${(e) => { ui.adjustSeat = e.target.value; }}>
        ${seated.map(({ seat, i }) => html`<option value=${i} selected=${String(ui.adjustSeat) === String(i)}>${seat.name} (seat ${i + 1})</option>`)}
      </select></label>
      <label class="field">Amount (+ or −) <input type="number" name="adjust_amount" step="1" value=${ui.adjustAmount || ''}
        onInput=${(e) => { ui.adjustAmount = e.target.value; }} /></label>
      <label class="field">Reason <input name="adjust_reason" maxlength="100" autocomplete="off" value=${ui.adjustReason || ''}
        placeholder="Paid 50 in cash" onInput=${(e) => { ui.adjustReason = e.target.value; }} /></label>
      <button type="submit" class="btn" disabled=${!seated.length}>Adjust stack</button>
    </form>

    <div class="host-seats" role="list" aria-label="Seats">
      ${empty.length ? html`<div class="host-line" role="listitem">
        <span>Empty seats</span>
        ${empty.map((i) => html`<button type="button" class="btn small" key=${i} aria-label=${`Add a bot to seat ${i + 1}`}
          onClick=${() => ctrl.command('add_bot', { seat: i })}>Bot to seat ${i + 1}</button>`)}
      </div>` : null}
      ${others.map(({ seat, i }) => html`<div class="host-line" role="listitem" key=${i} data-host-seat=${i}>
        <span>${seat.name}${seat.bot ? ' (bot)' : ''} · seat ${i + 1}</span>
        <button type="button" class="btn small" aria-label=${`Remove ${seat.name}`} onClick=${() => ctrl.command('remove', { seat: i })}>Remove</button>
        ${seat.bot ? null : html`<button type="button" class="btn small" aria-label=${`Make ${seat.name} the host`}
          onClick=${() => ctrl.command('transfer_host', { player_id: seat.player_id })}>Make host</button>`}
      </div>`)}
    </div>

    <div class="host-row danger">
      ${ui.confirmClose
        ? html`<span>Close the table for good? Everyone is cashed out after this hand.</span>
          <button type="button" class="btn danger" onClick=${() => { ui.confirmClose = false; ctrl.command('close'); }}>Yes, close the table</button>
          <button type="button" class="btn" onClick=${() => { ui.confirmClose = false; ctrl.redraw(); }}>Keep it open</button>`
        : html`<button type="button" class="btn danger" onClick=${() => { ui.confirmClose = true; ctrl.redraw(); }}>Close table</button>`}
    </div>` : null}
  </section>`;
}

// What the panel sends (here rather than in table-ctrl.js: only the open panel uses them).
// The stakes: only what the host changed, against what the next hand would use.
function setStakes(ctrl) {
  const c = ctrl.state.table.next_config || ctrl.state.table.config;
  const changes = {};
  Object.entries(ctrl.ui.hostStakes).forEach(([key, value]) => {
    if (typeof value === 'boolean') {
      if (value !== !!c[key]) changes[key] = value;
      return;
    }
    const n = Math.round(Number(value));
    if (Number.isFinite(n) && n !== c[key]) changes[key] = n;
  });
  ctrl.ui.hostStakes = {};
  if (!Object.keys(changes).length) { ctrl.flash('Nothing changed.'); ctrl.redraw(); return; }
  ctrl.request({ type: 'set_stakes', ...changes });
}

function adjust(ctrl) {
  const s = ctrl.state;
  const ui = ctrl.ui;
  const seats = s.seats.map((x, i) => (x ? i : null)).filter((i) => i != null);
  const seat = ui.adjustSeat != null && ui.adjustSeat !== '' ? Number(ui.adjustSeat) : seats[0];
  const amount = Math.round(Number(ui.adjustAmount));
  if (seat == null || !Number.isFinite(amount) || amount === 0) { ctrl.flash('Give a whole amount, + to add or − to take.'); return; }
  const reason = (ui.adjustReason || '').trim().slice(0, 100);
  ctrl.request({ type: 'adjust', seat, amount, ...(reason ? { reason } : {}) });
  ui.adjustAmount = '';
  ui.adjustReason = '';
  ctrl.redraw();
}

function copyInvite(ctrl) {
  const url = `${location.origin}/t/${ctrl.code}`;
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  ctrl.flash(`Link copied: ${url}`);
  ctrl.redraw();
}
