// Dialogs over the table: sit down (buy-in), top up, invite, settings, the ledger (fetched
// with its first opening: lazy.js). Loaded by the table's view when one opens.
import { html } from '../html.js';
import { lazy } from '../lazy.js';
import { dialogRef } from '../focus.js';

const ledger = lazy(() => import('./ledger.js'));

export function dialogsView(ctrl) {
  const d = ctrl.ui.dialog;
  const l = d === 'ledger' ? ledger.now(ctrl.redraw) : null;
  return html`
    ${d === 'sit' ? sitDialog(ctrl) : null}
    ${d === 'topup' ? topUpDialog(ctrl) : null}
    ${d === 'invite' ? inviteDialog(ctrl) : null}
    ${d === 'settings' ? settingsDialog(ctrl) : null}
    ${l ? l.ledgerDialog(ctrl) : null}`;
}

function modal(ctrl, title, body, name) {
  return html`<div class="modal-back" onClick=${(e) => { if (e.target === e.currentTarget) ctrl.closeDialog(); }}>
    <div class="modal" role="dialog" aria-modal="true" aria-label=${title} data-dialog=${name} tabindex="-1" ref=${dialogRef}>
      <h2>${title}</h2>
      ${body}
    </div>
  </div>`;
}

function sitDialog(ctrl) {
  const c = ctrl.state.table.config;
  const ui = ctrl.ui;
  return modal(ctrl, `Sit in seat ${ui.sitSeat + 1}`, html`
    <form onSubmit=${(e) => { e.preventDefault(); ctrl.sit(); }}>
      <label class="field">Buy-in (${c.buy_in_min} to ${c.buy_in_max})
        <input type="range" min=${c.buy_in_min} max=${c.buy_in_max} value=${ui.buyIn} aria-label="Buy-in slider"
          onInput=${(e) => { ui.buyIn = Number(e.target.value); ctrl.redraw(); }} />
        <input type="number" name="buy_in" min=${c.buy_in_min} max=${c.buy_in_max} value=${ui.buyIn} required data-autofocus
          aria-label=${`Buy-in, ${c.buy_in_min} to ${c.buy_in_max}`}
          onInput=${(e) => { ui.buyIn = e.target.value; }} />
      </label>
      <fieldset class="choice">
        <label><input type="radio" name="post" checked=${!ui.post} onChange=${() => { ui.post = false; ctrl.redraw(); }} /> Wait for the big blind</label>
        <label><input type="radio" name="post" checked=${ui.post} onChange=${() => { ui.post = true; ctrl.redraw(); }} /> Post a big blind and play now</label>
      </fieldset>
      ${c.approval_required && !ctrl.state.you.host ? html`<p class="hint">The host approves each seat.</p>` : null}
      <div class="row">
        <button type="button" class="btn" onClick=${() => ctrl.closeDialog()}>Cancel</button>
        <button type="submit" class="btn primary" data-cmd="confirm-sit">Sit down</button>
      </div>
    </form>`, 'sit');
}

function topUpDialog(ctrl) {
  const s = ctrl.state;
  const c = s.table.config;
  const seat = s.seats[s.you.seat];
  const room = c.buy_in_max - (seat ? seat.stack : 0);
  return modal(ctrl, 'Top up', html`
    <form onSubmit=${(e) => { e.preventDefault(); ctrl.topUp(); }}>
      <label class="field">Add up to ${room} chips
        <input type="number" name="top_up" min="1" max=${room} value=${ctrl.ui.topUp} required data-autofocus
          onInput=${(e) => { ctrl.ui.topUp = e.target.value; }} />
      </label>
      <div class="row">
        <button type="button" class="btn" onClick=${() => ctrl.closeDialog()}>Cancel</button>
        <button type="submit" class="btn primary" data-cmd="confirm-top-up">Top up</button>
      </div>
    </form>`, 'topup');
}

function inviteDialog(ctrl) {
  const url = `${location.origin}/t/${ctrl.code}`;
  return modal(ctrl, 'Invite friends', html`
    <p>Send this link. Anyone with it can watch and take a seat.</p>
    <input class="invite-url" readonly value=${url} onFocus=${(e) => e.target.select()} />
    <div class="row">
      <button type="button" class="btn primary" onClick=${() => { if (navigator.clipboard) navigator.clipboard.writeText(url); ctrl.flash('Link copied.'); ctrl.closeDialog(); }}>Copy link</button>
      <button type="button" class="btn" onClick=${() => ctrl.closeDialog()}>Close</button>
    </div>`, 'invite');
}

function settingsDialog(ctrl) {
  const st = ctrl.settings;
  const toggle = (key, label) => html`<label class="toggle">
    <input type="checkbox" name=${key} checked=${!!st[key]} onChange=${(e) => ctrl.setSetting(key, e.target.checked)} /> ${label}</label>`;
  return modal(ctrl, 'Settings', html`
    ${toggle('sound', 'Sound when it is my turn')}
    ${toggle('actionSounds', 'Sounds for actions: check, bet, fold, win')}
    ${toggle('titleBadge', 'Mark the tab title and icon when it is my turn')}
    ${toggle('notify', 'A notification when it is my turn and this tab is hidden')}
    ${toggle('reactions', 'Reactions on the seats (mine to send, the others’ shown)')}
    ${toggle('fourColour', 'Four-colour deck')}
    ${toggle('animations', 'Animations')}
    ${toggle('screenReader', 'Screen reader mode: a command box, and every action said aloud')}
    <div class="row"><button type="button" class="btn primary" onClick=${() => ctrl.closeDialog()}>Done</button></div>`, 'settings');
}
