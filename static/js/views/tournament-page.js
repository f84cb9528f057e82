// A tournament's own page (/tournaments/{code}), the link a host shares: a first-time visitor
// picks a name and registers in one step; everyone sees who registers and unregisters and
// the start; the host invites, adds practice bots and starts (or it starts at its set time);
// during play, the deal among the players left; the standings throughout.
import { html } from '../html.js';
import { clockText, fieldText, ordinal, tournamentTopbar, useStyles } from './tournament.js';

const STATUS = { registering: 'Registering', running: 'Running', paused: 'Paused', finished: 'Finished' };

export function standingsView(page) {
  useStyles();
  const t = page.ctrl;
  const s = t.state;
  if (!s) return html`<div class="page tournament-page">${tournamentTopbar(null)}<p>${t.error || 'Loading…'}</p></div>`;
  const me = page.me && page.me.player_id;
  const code = encodeURIComponent(s.code);
  const sub = html`<span data-status=${s.status}>${STATUS[s.status]}</span>${s.status === 'registering' ? null : html` · level ${s.level}`} · <span class="field-count">${fieldText(s)}</span>`;
  return html`<div class="page tournament-page">
    ${tournamentTopbar(s, sub)}
    ${t.message || page.message ? html`<div class="toast error" role="alert">${page.message || t.message}</div>` : null}
    ${me ? null : joinView(page, s)}
    ${me && s.host === me && s.status !== 'finished' ? hostView(page, s) : null}
    ${me ? registrationView(page, s, me) : null}
    ${s.status === 'running' || s.status === 'paused' ? tablesView(s) : null}
    ${dealView(t, s, me)}
    ${s.status !== 'registering' ? standingsTable(s) : null}
    <section class="card-box">
      <h2>Players <span class="count">(${s.registered.length})</span></h2>
      <ul class="registered">${s.registered.map((r) => html`<li data-player=${r.player_id}>${r.name}${r.bot ? html` <span class="tag">bot</span>` : null}${r.player_id === s.host ? html` <span class="tag">host</span>` : null}${r.addon ? html` <span class="addon-mark">(add-on)</span>` : null}</li>`)}</ul>
    </section>
    ${scheduleView(s)}
    <p class="links"><a href=${`/tournaments/${code}/clock`}>Clock</a>${' · '}<a
      href=${`/api/tournaments/${code}/results.csv`} download>Results (CSV)</a> · <a href="/">Home</a></p>
  </div>`;
}

// A first visit: no name yet. Naming and registering are one step (registration open).
function joinView(page, s) {
  const open = (s.status === 'registering' || s.late_registration) && !fieldFull(s);
  return html`<section class="card-box join-box">
    <h2>You are invited to ${s.name}.</h2>
    <p>${open ? 'Pick the name you play under, then register.' : `${fieldFull(s) ? 'The field is full. ' : ''}Pick a name to follow it.`}</p>
    <form class="inline" onSubmit=${(e) => { e.preventDefault(); page.join(e.target.elements.name.value, open); }}>
      <input name="name" maxlength="32" required placeholder="Display name" autocomplete="nickname" aria-label="Display name" />
      <button type="submit" class="btn primary" data-cmd=${open ? 'register' : 'save-name'} disabled=${page.ctrl.busy}>${open ? 'Register' : 'Continue'}</button>
    </form>
  </section>`;
}

function registrationView(page, s, me) {
  const t = page.ctrl;
  // In the field now (a player who busted may re-enter while registration is open).
  const registered = s.registered.some((r) => r.player_id === me) && !(s.you && s.you.place != null);
  if (s.status === 'finished') return null;
  if (s.your_table) {
    return html`<section class="card-box"><a class="btn primary big" data-cmd="my-table" href=${`/t/${encodeURIComponent(s.your_table)}`}>Go to your table${s.your_table_name ? `: ${s.your_table_name}` : ''}</a>
      ${addonView(t, s, me)}</section>`;
  }
  if (s.status !== 'registering' && !s.late_registration) return null;
  return html`<section class="card-box">
    <div class="row">
      <span class="start-line">${s.status === 'registering' ? startLine(s) : 'It has started: late registration is open.'}</span>
      ${registered
        ? html`<span class="you-in" data-registered>You are registered.</span>
          <button type="button" class="btn" data-cmd="unregister" disabled=${t.busy} onClick=${() => t.act('unregister')}>Unregister</button>`
        : fieldFull(s)
          ? html`<button type="button" class="btn" data-cmd="register" data-full disabled>Field full</button>`
          : html`<button type="button" class="btn primary" data-cmd="register" disabled=${t.busy} onClick=${() => t.act('register')}>Register</button>`}
    </div>
  </section>`;
}

// Every entry (re-entries too) counts against the field's size, as the director counts it:
// a full field's Register would only be refused.
function fieldFull(s) {
  return s.max_players != null && s.entries >= s.max_players;
}

function startLine(s) {
  if (s.start_at) {
    const at = new Date(s.start_at * 1000);
    return `Starts at ${at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}${at.toDateString() !== new Date().toDateString() ? ` on ${at.toLocaleDateString()}` : ''}, or when the host starts it.`;
  }
  return 'Starts when the host starts it.';
}

function hostView(page, s) {
  const t = page.ctrl;
  const link = `${location.origin}/tournaments/${encodeURIComponent(s.code)}`;
  const tables = Math.max(1, Math.ceil(s.entries / s.seats));
  return html`<section class="card-box host-box">
    <h2>Host</h2>
    <label class="field">Invite link
      <span class="row"><input readonly value=${link} aria-label="Invite link" data-invite />
      <button type="button" class="btn" data-cmd="copy-invite" onClick=${() => page.copy(link)}>${page.copied ? 'Copied' : 'Copy'}</button></span></label>
    ${s.status === 'registering' ? html`<div class="row">
      <button type="button" class="btn" data-cmd="add-bot" disabled=${t.busy || s.entries >= s.max_players} onClick=${() => t.act('add_bot')}>Add a practice bot</button>
      <button type="button" class="btn primary" data-cmd="start" disabled=${t.busy || s.entries < 2} onClick=${() => t.act('start')}>Start now</button>
      <span class="muted">${s.entries < 2 ? 'Two players at least.' : `${s.entries} players: ${tables} ${tables === 1 ? 'table' : 'tables'} of up to ${s.seats}.`}</span>
    </div>` : html`<div class="row">
      ${s.status === 'paused'
        ? html`<button type="button" class="btn primary" data-cmd="resume" disabled=${t.busy} onClick=${() => t.act('resume')}>Resume</button>`
        : html`<button type="button" class="btn" data-cmd="pause" disabled=${t.busy} onClick=${() => t.act('pause')}>Pause</button>`}
      ${s.next ? html`<button type="button" class="btn" data-cmd="next-level" disabled=${t.busy} onClick=${() => t.act('next_level')}>${s.on_break ? 'End the break' : 'Next level'}</button>` : null}
      ${s.late_registration ? html`<button type="button" class="btn" data-cmd="add-bot" disabled=${t.busy} onClick=${() => t.act('add_bot')}>Add a practice bot</button>` : null}
      <span class="muted">${s.status === 'paused' ? 'Paused: no hand is dealt, the clock is stopped.' : 'Pausing stops the clock after the hands being played.'}</span>
    </div>`}
  </section>`;
}

function tablesView(s) {
  return html`<section class="card-box">
    <h2>Tables</h2>
    <ul class="tables">${s.tables.map((tb) => html`<li data-table=${tb.code}>
      ${tb.code ? html`<a href=${`/t/${encodeURIComponent(tb.code)}`}>${tb.name}</a>` : tb.name} <span class="muted">${tb.players} ${tb.players === 1 ? 'player' : 'players'}</span></li>`)}</ul>
  </section>`;
}

function addonView(t, s, me) {
  if (!s.addon) return null;
  const taken = s.registered.some((r) => r.player_id === me && r.addon);
  return html`<p class="addon">Add-on: ${s.addon.chips} chips for ${s.addon.price}, once each, during level ${s.addon.level} or the break after it (${s.addon.taken} taken).
    ${s.addon.open && !taken ? html`<button type="button" class="btn primary" data-cmd="addon" onClick=${() => t.act('addon')}>Take the add-on</button>` : null}</p>`;
}

// A deal among the players left: the figures (being made: a moment), the asks on these
// stacks, the talks' time left, and the viewer's buttons if they are one of them.
function dealView(t, s, me) {
  const d = s.deal;
  if (!d) return null;
  const mine = d.players && d.players.some((p) => p.player_id === me);
  return html`<section class="card-box deal-box">
    <h2>A deal</h2>
    ${d.players ? html`<table class="deal">
      <thead><tr><th scope="col">Player</th><th scope="col">Stack</th><th scope="col">Chip chop</th><th scope="col">ICM</th></tr></thead>
      <tbody>${d.players.map((p) => html`<tr><th scope="row">${p.name}</th><td>${p.stack}</td><td>${p.chip_chop}</td><td>${p.icm}</td></tr>`)}</tbody>
    </table>` : html`<p class="muted">Working out the figures…</p>`}
    <p class="deal-votes">Asked on these stacks: ICM ${d.votes.icm} of ${d.of}, chip chop ${d.votes.chips} of ${d.of}.${' '}
      ${d.talks != null ? html`Deal talks: the next hand waits <span class="countdown">${clockText(d.talks)}</span>. ` : null}
      A deal is made when everyone left asks for the same; an ask lapses when the stacks change.</p>
    ${mine ? html`<div class="row">
      <button type="button" class="btn" data-cmd="chop-icm" aria-pressed=${d.yours === 'icm'} onClick=${() => t.act('chop_icm')}>Ask for an ICM deal</button>
      <button type="button" class="btn" data-cmd="chop-chips" aria-pressed=${d.yours === 'chips'} onClick=${() => t.act('chop_chips')}>Ask for a chip chop</button>
      ${d.yours ? html`<button type="button" class="btn ghost" data-cmd="chop-withdraw" onClick=${() => t.act('chop_withdraw')}>Withdraw my ask</button>` : null}
    </div>` : null}
  </section>`;
}

function standingsTable(s) {
  if (!s.standings.length) return null;
  return html`<section class="card-box">
    <h2>Standings</h2>
    <table class="standings">
      <thead><tr><th scope="col">Place</th><th scope="col">Player</th><th scope="col">Prize</th>${s.addon ? html`<th scope="col">Add-on</th>` : null}</tr></thead>
      <tbody>${s.standings.map((r) => html`<tr data-place=${r.place}><td>${r.place}</td><th scope="row">${r.name}</th><td>${r.prize}</td>${s.addon ? html`<td>${r.addon ? 'yes' : 'no'}</td>` : null}</tr>`)}</tbody>
    </table>
  </section>`;
}

// The levels to come (and the prizes), folded away once it runs.
function scheduleView(s) {
  const levels = s.schedule.levels;
  const now = s.status === 'registering' ? 0 : s.level;
  return html`<details class="card-box schedule" open=${s.status === 'registering'}>
    <summary><h2>Structure</h2> <span class="muted">${levels.length} levels${s.schedule.break_every ? `, a ${s.schedule.break_minutes}-minute break every ${s.schedule.break_every}` : ''}${s.payouts.length ? ` · pays ${s.payouts.length}` : ''}</span></summary>
    <table class="levels">
      <thead><tr><th scope="col">Level</th><th scope="col">Blinds</th><th scope="col">Ante</th><th scope="col">Minutes</th></tr></thead>
      <tbody>${levels.map((l, k) => html`<tr class=${k + 1 === now ? 'now' : ''}><td>${k + 1}</td><td>${l.small_blind} / ${l.big_blind}</td><td>${l.big_blind_ante ? `${l.big_blind_ante} (big blind)` : l.ante || ''}</td><td>${l.minutes}</td></tr>`)}</tbody>
    </table>
    ${s.payouts.length ? html`<p>Prizes: ${s.payouts.map((p, k) => `${ordinal(k + 1)} ${p}`).join(' · ')}</p>` : null}
  </details>`;
}
