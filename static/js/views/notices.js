// What the table tells its viewers about itself and about their own place at it, in the
// server's words (`WORDS.notices`, from app/tables/labels.py): the pause and closing banner
// under the top bar, and the dock's lines for a seat request and a sit-out to come.
import { html } from '../html.js';
import { WORDS } from '../words.js';

const NOTICES = WORDS.notices || {};

// Said as they appear (polite), except in screen-reader mode, whose own live region
// (speech.js) says these already. Not a `status` role: that is the toast's.
const live = (ctrl) => (ctrl.settings.screenReader ? null : 'polite');

export function notice(key, values = {}) {
  const text = NOTICES[key] || '';
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : ''));
}

// The icons are drawn by the style sheet (no font is sure to have ⏸).
// Closing outranks pausing (a close during a hand is stored as a pause too). A table paused
// only because nobody seated is connected (`idle`) says nothing here.
export function tableNotice(ctrl) {
  const s = ctrl.state;
  if (!s || s.replay || ctrl.conn === 'closed') return null;
  const t = s.table;
  if (t.closing) {
    return html`<div class="notice closing" aria-live=${live(ctrl)} data-notice="closing">
      <span class="notice-icon stop" aria-hidden="true"></span>${notice('closing')}</div>`;
  }
  // One text, whatever this page knows of the hand in play: every page reads the same.
  if (t.paused && !t.idle && !t.config.tournament) {
    return html`<div class="notice paused" aria-live=${live(ctrl)} data-notice="paused">
      <span class="notice-icon pause" aria-hidden="true"></span>${notice('paused')}</div>`;
  }
  return null;
}

// The dock's lines about the viewer's own seat: a request waiting for the host (with its
// cancel), a refusal (announced by the controller's toast), what a sit-out asked during a hand
// will do, and a sitting-out seat's way back in.
export function seatNotice(ctrl) {
  const s = ctrl.state;
  if (!s || s.replay) return null;
  const you = s.you;
  if (you.request) {
    return html`<div class="seat-notice pending" aria-live=${live(ctrl)} data-notice="request">
      <p>${notice('request_pending', { seat: you.request.seat + 1 })}</p>
      <button type="button" class="btn small" data-cmd="cancel-request"
        onClick=${() => ctrl.command('cancel_request')}>Cancel request</button>
    </div>`;
  }
  if (you.refused && you.seat == null) {
    return html`<div class="seat-notice refused" data-notice="refused">
      <p>${notice('request_refused')}</p></div>`;
  }
  const seat = you.seat != null ? s.seats[you.seat] : null;
  if (!seat || s.table.config.tournament) return null;
  // Sitting out (chosen, or by the clock): coming back is one click, in the dock (why they
  // sit out is the seat's own note, below).
  if (seat.status === 'sitting_out' && !ctrl.inHand() && seat.stack > 0) {
    return html`<div class="seat-notice sat-out" aria-live=${live(ctrl)} data-notice="sat_out">
      <p>${notice('sat_out')}</p>
      <button type="button" class="btn small" data-cmd="sit-in"
        onClick=${() => ctrl.command('sit_in')}>Sit in</button>
    </div>`;
  }
  if (!ctrl.inHand()) return null;
  const key = seat.status === 'sitting_out' || seat.sit_out_next ? 'sit_out_next'
    : seat.sit_out_next_bb ? 'sit_out_next_bb' : null;
  if (!key) return null;
  return html`<div class="seat-notice sit-out" aria-live=${live(ctrl)} data-notice=${key}><p>${notice(key)}</p></div>`;
}
