// The home page: the display name, a new table with every setting, the viewer's tables, and
// opening a table from an invite link or code.
import { html } from '../html.js';
import { GAME_NAMES, BETTING } from '../format.js';
import { tournamentFormView } from './tournament-form.js';
import { pastView, devicesView } from './past.js';

// Six-max pot-limit Omaha 1/2, buy-in 40 to 100 big blinds, 30 s to act.
export const DEFAULTS = {
  name: 'Friday Omaha', game: 'omaha', betting: 'pot-limit', small_blind: 1, big_blind: 2,
  big_bet: 0, ante: 0, straddle: false, boards: 1, bomb_pot_every: 0, bomb_pot_ante: 0,
  run_it_twice: true, rabbit_hunt: false, odd_chip: 'position', raise_cap: 4, buy_in_min: 80, buy_in_max: 200,
  seats: 6, decision_time: 30, time_bank: 60, approval_required: false,
  time_bank_refill: 'hand', time_bank_per_hand: 5, showdown_time: 5, sit_out_after_timeouts: 2,
  big_blind_ante: 0, cap_heads_up: false, dead_button: false, spectator_chat: true, reveal_seed: true,
};

const NUMBERS = new Set(['small_blind', 'big_blind', 'big_bet', 'ante', 'big_blind_ante', 'boards', 'bomb_pot_every',
  'bomb_pot_ante', 'raise_cap', 'buy_in_min', 'buy_in_max', 'seats', 'decision_time', 'time_bank',
  'time_bank_per_hand', 'showdown_time', 'sit_out_after_timeouts']);

export function homeView(home) {
  return html`<div class="page home-page">
    <header class="hero">
      <h1><span class="logo">♠</span> Omaha</h1>
      <p>Every Omaha game, for friends, on your own server.</p>
    </header>
    ${home.message ? html`<div class="toast error" role="alert">${home.message}</div>` : null}
    ${nameView(home)}
    ${home.me ? html`${joinView(home)}${tablesView(home)}${pastView(home.past)}${createView(home)}${devicesView(home.past)}` : null}
    ${home.me && home.tournament ? tournamentFormView(home.tournament) : null}
  </div>`;
}

function nameView(home) {
  const me = home.me;
  return html`<section class="card-box name-box">
    <h2>${me ? html`Playing as <span class="me">${me.name}</span>` : 'Your name at the table'}</h2>
    <form class="inline" onSubmit=${(e) => { e.preventDefault(); home.saveName(e.target.elements.name.value); }}>
      <input name="name" maxlength="32" required placeholder="Display name" autocomplete="nickname"
        value=${home.nameDraft} onInput=${(e) => { home.nameDraft = e.target.value; }} aria-label="Display name" />
      <button type="submit" class="btn primary" data-cmd="save-name">${me ? 'Rename' : 'Continue'}</button>
    </form>
  </section>`;
}

function joinView(home) {
  return html`<section class="card-box">
    <h2>Join a table</h2>
    <form class="inline" onSubmit=${(e) => { e.preventDefault(); home.join(e.target.elements.code.value); }}>
      <input name="code" required placeholder="Invite link or code" aria-label="Invite link or code" />
      <button type="submit" class="btn" data-cmd="join">Open</button>
    </form>
  </section>`;
}

function tablesView(home) {
  if (!home.tables || !home.tables.length) return null;
  return html`<section class="card-box">
    <h2>Your tables</h2>
    <ul class="tables">
      ${home.tables.map((t) => html`<li>
        <a href=${`/t/${encodeURIComponent(t.code)}`} class="table-link">
          <span class="t-name">${t.name}</span>
          <span class="t-game">${t.label} · ${t.blinds}</span>
          <span class="t-count">${t.seated}/${t.seats} seated · ${t.online} online${t.host ? ' · host' : ''}${t.hand_running ? ' · playing' : ''}</span>
        </a>
      </li>`)}
    </ul>
  </section>`;
}

function field(home, key, label, attrs = {}) {
  const v = home.form[key];
  const set = (e) => {
    const t = e.target;
    home.form[key] = t.type === 'checkbox' ? t.checked : NUMBERS.has(key) ? Number(t.value) : t.value;
    home.redraw();
  };
  if (typeof v === 'boolean') {
    return html`<label class="toggle"><input type="checkbox" name=${key} checked=${v} onChange=${set} /> ${label}</label>`;
  }
  return html`<label class="field">${label}<input name=${key} value=${v} onInput=${set}
    type=${NUMBERS.has(key) ? 'number' : 'text'} ...${attrs} /></label>`;
}

function select(home, key, label, options) {
  return html`<label class="field">${label}
    <select name=${key} onChange=${(e) => { home.form[key] = NUMBERS.has(key) ? Number(e.target.value) : e.target.value; home.redraw(); }}>
      ${Object.entries(options).map(([value, text]) => html`<option value=${value} selected=${String(home.form[key]) === value}>${text}</option>`)}
    </select></label>`;
}

function createView(home) {
  const f = home.form;
  const seats = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [String(i + 2), `${i + 2} seats`]));
  return html`<section class="card-box create">
    <h2>New table</h2>
    <form onSubmit=${(e) => { e.preventDefault(); home.create(); }}>
      <div class="grid">
        ${field(home, 'name', 'Table name', { maxlength: 40, type: 'text' })}
        ${select(home, 'game', 'Game', GAME_NAMES)}
        ${select(home, 'betting', 'Betting', BETTING)}
        ${select(home, 'seats', 'Seats', seats)}
        ${field(home, 'small_blind', 'Small blind', { min: 0 })}
        ${field(home, 'big_blind', 'Big blind', { min: 1 })}
        ${field(home, 'buy_in_min', 'Minimum buy-in', { min: 1 })}
        ${field(home, 'buy_in_max', 'Maximum buy-in', { min: 1 })}
        ${field(home, 'decision_time', 'Seconds to act (0: no clock)', { min: 0, max: 600 })}
        ${field(home, 'time_bank', 'Time bank (seconds)', { min: 0, max: 3600 })}
      </div>
      <details class="more" open=${home.moreOpen} onToggle=${(e) => { home.moreOpen = e.target.open; }}>
        <summary>More settings</summary>
        <div class="grid">
          ${select(home, 'boards', 'Boards', { 1: 'One board', 2: 'Two boards (double board)' })}
          ${field(home, 'ante', 'Ante', { min: 0 })}
          ${field(home, 'big_blind_ante', 'Big blind ante (the big blind posts it for all; 0: none)', { min: 0 })}
          ${field(home, 'big_bet', 'Fixed limit: turn and river bet (0: 2 big blinds)', { min: 0 })}
          ${field(home, 'raise_cap', 'Fixed limit: raises per round', { min: 2, max: 10 })}
          ${field(home, 'cap_heads_up', 'Fixed limit: keep the cap heads-up')}
          ${field(home, 'bomb_pot_every', 'Bomb pot every N hands (0: never)', { min: 0, max: 1000 })}
          ${field(home, 'bomb_pot_ante', 'Bomb pot ante (0: one big blind)', { min: 0 })}
          ${select(home, 'odd_chip', 'Odd chip goes to', { position: 'First seat after the button', 'high-card': 'Highest card' })}
          ${field(home, 'straddle', 'Allow a straddle')}
          ${field(home, 'run_it_twice', 'Allow running it twice')}
          ${field(home, 'rabbit_hunt', 'Rabbit hunt: show the cards that would have come')}
          ${field(home, 'approval_required', 'Host approves each seat')}
          ${field(home, 'dead_button', 'Dead button (the big blind always moves on one seat)')}
          ${field(home, 'spectator_chat', 'Spectators may chat')}
          ${field(home, 'reveal_seed', 'Reveal the deal seed when the evening ends, so anyone can check every deal')}
          ${select(home, 'time_bank_refill', 'Time bank refill', { hand: 'Some seconds each hand', none: 'Never (spent for the evening)' })}
          ${field(home, 'time_bank_per_hand', 'Seconds added to the time bank each hand', { min: 0, max: 600 })}
          ${field(home, 'showdown_time', 'Seconds to show or muck, or to vote on running it twice', { min: 1, max: 60 })}
          ${field(home, 'sit_out_after_timeouts', 'Sit out a player after this many timeouts in a row (0: never)', { min: 0, max: 10 })}
        </div>
      </details>
      <div class="row">
        <button type="submit" class="btn primary big" data-cmd="create" disabled=${home.busy}>Create table</button>
      </div>
    </form>
  </section>`;
}
