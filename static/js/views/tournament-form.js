// The home page's "New tournament" form, beside "New table": presets (sit-and-go turbo,
// regular, deep; several tables), every setting POST /api/tournaments takes (docs/protocol.md
// 2.2), and the schedule and prizes those settings make, previewed by the server
// (POST /api/tournaments/preview) as they change.
import { html } from '../html.js';
import { GAME_NAMES, BETTING } from '../format.js';
import { createTournament, previewTournament } from '../api.js';
import { clockText, ordinal, useStyles } from './tournament.js';

const SNG = { seats: 6, max_players: 6, expected_players: 6, late_registration_level: 0, reentries: 0, break_every: 0 };
export const PRESETS = {
  'sng-turbo': { label: 'Sit-and-go turbo', ...SNG, structure: 'turbo' },
  'sng-regular': { label: 'Sit-and-go', ...SNG, structure: 'regular' },
  'sng-deep': { label: 'Sit-and-go deep', ...SNG, structure: 'deep' },
  multi: { label: 'Several tables', structure: 'regular', seats: 9, max_players: 60, expected_players: 18,
    late_registration_level: 4, reentries: 1, break_every: 4, break_minutes: 10 },
};

export const TOURNAMENT_DEFAULTS = {
  preset: 'sng-turbo', name: 'Friday tournament', game: 'omaha', betting: 'pot-limit', starting_stack: 1500,
  ...PRESETS['sng-turbo'], ante: 'big_blind', level_minutes: '', target_minutes: 120, levels_text: '',
  break_minutes: 10, payouts: 'preset', payouts_text: '50, 30, 20', prize_pool: 100, decision_time: 30,
  time_bank: 60, start_when_full: false, start_at: '', addon_chips: 0, addon_price: 0, addon_level: 0,
};
delete TOURNAMENT_DEFAULTS.label;

const NUMBERS = new Set(['starting_stack', 'seats', 'max_players', 'expected_players', 'late_registration_level',
  'reentries', 'break_every', 'break_minutes', 'prize_pool', 'decision_time', 'time_bank', 'addon_chips',
  'addon_price', 'addon_level', 'target_minutes']);

// "50/100 15" per line: small blind / big blind [/ big blind ante], minutes.
export function parseLevels(text) {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).map((line) => {
    const [amounts, minutes] = line.split(/\s+/);
    const [sb, bb, bba] = amounts.split('/').map(Number);
    return { small_blind: sb, big_blind: bb, big_blind_ante: bba || 0, minutes: Number(minutes || 15) };
  });
}

// The request body: what the form holds, in the API's terms.
export function tournamentBody(f) {
  const b = {};
  ['name', 'game', 'betting', 'structure', 'ante'].forEach((k) => { b[k] = f[k]; });
  NUMBERS.forEach((k) => { if (k !== 'target_minutes') b[k] = Number(f[k]); });
  b.start_when_full = !!f.start_when_full;
  if (f.structure === 'suggest') b.target_minutes = Number(f.target_minutes);
  if (f.structure === 'custom') b.levels = parseLevels(f.levels_text);
  else if (String(f.level_minutes).trim() !== '') b.level_minutes = Number(f.level_minutes);
  b.payouts = f.payouts === 'custom'
    ? f.payouts_text.split(/[,\s]+/).filter(Boolean).map((p) => Math.round(Number(p) * 100))
    : f.payouts;
  if (f.start_at) b.start_at = new Date(f.start_at).getTime() / 1000;
  return b;
}

export class TournamentForm {
  constructor(redraw) {
    this.redraw = redraw;
    this.form = { ...TOURNAMENT_DEFAULTS };
    this.open = false;
    this.preview = null;
    this.error = null;
    this.busy = false;
    this._timer = 0;
    this._asked = 0;
  }

  set(key, value) {
    this.form[key] = value;
    if (key === 'preset' && PRESETS[value]) {
      const { label, ...values } = PRESETS[value];
      Object.assign(this.form, values);
    }
    this.redraw();
    this.schedulePreview();
  }

  toggle(open) {
    this.open = open;
    if (open && !this.preview) this.schedulePreview(0);
  }

  schedulePreview(delay = 250) {
    clearTimeout(this._timer);
    this._timer = setTimeout(() => this.loadPreview(), delay);
  }

  async loadPreview() {
    const asked = ++this._asked;
    try {
      const preview = await previewTournament(tournamentBody(this.form));
      if (asked !== this._asked) return; // a later change asked again
      this.preview = preview;
      this.error = null;
    } catch (e) {
      if (asked !== this._asked) return;
      this.preview = null;
      this.error = e.message;
    }
    this.redraw();
  }

  async create() {
    this.busy = true;
    this.redraw();
    try {
      const made = await createTournament(tournamentBody(this.form));
      location.assign(`/tournaments/${encodeURIComponent(made.code)}`);
    } catch (e) {
      this.error = e.message;
      this.busy = false;
      this.redraw();
    }
  }
}

function field(t, key, label, attrs = {}) {
  const v = t.form[key];
  const set = (e) => t.set(key, e.target.type === 'checkbox' ? e.target.checked : e.target.value);
  if (typeof v === 'boolean') {
    return html`<label class="toggle"><input type="checkbox" name=${key} checked=${v} onChange=${set} /> ${label}</label>`;
  }
  return html`<label class="field">${label}<input name=${key} value=${v} onInput=${set}
    type=${NUMBERS.has(key) ? 'number' : 'text'} ...${attrs} /></label>`;
}

function select(t, key, label, options) {
  return html`<label class="field">${label}
    <select name=${key} onChange=${(e) => t.set(key, e.target.value)}>
      ${Object.entries(options).map(([value, text]) => html`<option value=${value} selected=${String(t.form[key]) === value}>${text}</option>`)}
    </select></label>`;
}

export function tournamentFormView(t) {
  useStyles();
  const f = t.form;
  const games = GAME_NAMES;
  const seats = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [String(i + 2), `${i + 2} a table`]));
  const presets = Object.fromEntries(Object.entries(PRESETS).map(([k, p]) => [k, p.label]));
  return html`<details class="card-box create create-tournament" open=${t.open} onToggle=${(e) => t.toggle(e.target.open)}>
    <summary><h2>New tournament</h2><span class="muted">sit-and-go or several tables, with practice bots if you like</span></summary>
    <form onSubmit=${(e) => { e.preventDefault(); t.create(); }}>
      <div class="grid">
        ${select(t, 'preset', 'Preset', presets)}
        ${field(t, 'name', 'Tournament name', { maxlength: 40, type: 'text' })}
        ${select(t, 'game', 'Game', games)}
        ${select(t, 'betting', 'Betting', BETTING)}
        ${field(t, 'starting_stack', 'Starting stack', { min: 10 })}
        ${select(t, 'seats', 'Seats per table', seats)}
        ${field(t, 'max_players', 'Most players', { min: 2, max: 1000 })}
        ${field(t, 'expected_players', 'Players expected (for the preview)', { min: 2, max: 1000 })}
        ${select(t, 'structure', 'Structure', { turbo: 'Turbo (5-minute levels)', regular: 'Regular (15 minutes)', deep: 'Deep (20 minutes)', suggest: 'To end in about…', custom: 'My own levels' })}
        ${f.structure === 'suggest' ? field(t, 'target_minutes', 'Minutes it should last', { min: 10 }) : null}
        ${f.structure === 'custom' ? null : field(t, 'level_minutes', "Minutes a level (blank: the structure's)", { min: 0.01, step: 'any', type: 'number' })}
        ${field(t, 'prize_pool', 'Prize pool (units, e.g. the buy-ins)', { min: 0 })}
        ${select(t, 'payouts', 'Payouts', { preset: 'By the field size', custom: 'My own percentages', none: 'None (places only)' })}
        ${f.payouts === 'custom' ? field(t, 'payouts_text', 'Percent per place, best first', { type: 'text' }) : null}
        ${field(t, 'decision_time', 'Seconds to act', { min: 0, max: 600, step: 'any' })}
        ${field(t, 'time_bank', 'Time bank (seconds)', { min: 0, max: 3600 })}
      </div>
      ${f.structure === 'custom' ? html`<label class="field">Levels, one a line: small/big[/big blind ante] minutes
        <textarea name="levels_text" rows="6" placeholder=${'25/50 15\n50/100 15\n75/150/150 15'} onInput=${(e) => t.set('levels_text', e.target.value)}>${f.levels_text}</textarea></label>` : null}
      <details class="more">
        <summary>More settings</summary>
        <div class="grid">
          ${select(t, 'ante', 'Antes (from level 4)', { big_blind: 'Big blind ante', classic: 'Classic ante', none: 'No ante' })}
          ${field(t, 'break_every', 'A break every N levels (0: none)', { min: 0, max: 100 })}
          ${field(t, 'break_minutes', 'Break minutes', { min: 0, max: 120, step: 'any' })}
          ${field(t, 'late_registration_level', 'Late registration to the end of level (0: none)', { min: 0, max: 100 })}
          ${field(t, 'reentries', 'Re-entries per player (while registration is open)', { min: 0, max: 100 })}
          ${field(t, 'addon_chips', 'Add-on chips (0: no add-on)', { min: 0 })}
          ${field(t, 'addon_price', 'Add-on price (to the prize pool)', { min: 0 })}
          ${field(t, 'addon_level', 'Add-on in level (0: the last of late registration)', { min: 0, max: 100 })}
          <label class="field">Start at (blank: when you start it)
            <input type="datetime-local" name="start_at" value=${f.start_at} onInput=${(e) => t.set('start_at', e.target.value)} /></label>
          ${field(t, 'start_when_full', 'Start as soon as it is full')}
        </div>
      </details>
      ${previewView(t)}
      <div class="row">
        <button type="submit" class="btn primary big" data-cmd="create-tournament" disabled=${t.busy}>Create tournament</button>
      </div>
    </form>
  </details>`;
}

// A time into the tournament: m:ss within the first hour, then hours and minutes.
const hours = (m) => (m < 60 ? clockText(m * 60) : `${Math.floor(m / 60)} h ${String(Math.round(m % 60)).padStart(2, '0')}`);

function previewView(t) {
  if (t.error) return html`<p class="toast error preview-error" role="alert">${t.error}</p>`;
  const p = t.preview;
  if (!p) return null;
  const rows = [...p.levels.map((l) => ({ ...l, kind: 'level' })), ...p.breaks.map((b) => ({ ...b, kind: 'break' }))]
    .sort((a, b) => a.starts - b.starts || (a.kind === 'level' ? -1 : 1));
  return html`<section class="preview" aria-label="Schedule and prizes">
    <h3>Schedule</h3>
    <div class="preview-scroll"><table class="schedule-preview">
      <thead><tr><th scope="col">Level</th><th scope="col">Blinds</th><th scope="col">Ante</th><th scope="col">Minutes</th><th scope="col">Starts</th></tr></thead>
      <tbody>${rows.map((r) => r.kind === 'break'
        ? html`<tr class="break"><td colspan="3">Break</td><td>${r.minutes}</td><td>${hours(r.starts)}</td></tr>`
        : html`<tr data-preview-level=${r.level}><td>${r.level}</td><td>${r.small_blind} / ${r.big_blind}</td><td>${r.big_blind_ante || r.ante || ''}</td><td>${r.minutes}</td><td>${hours(r.starts)}</td></tr>`)}</tbody>
    </table></div>
    ${p.late_registration_until != null ? html`<p>Late registration until ${hours(p.late_registration_until)} in.</p>` : null}
    <p class="preview-prizes">${p.payouts.length
      ? html`Prizes for ${t.form.expected_players} players: ${p.payouts.map((a, k) => html`<span class="prize-line">${ordinal(k + 1)} ${a}</span>`)}`
      : 'No prizes: places only.'}</p>
  </section>`;
}
