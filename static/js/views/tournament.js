// A tournament's clock, on its big-screen page (/tournaments/{code}/clock: level, blinds, the
// time to the next level or break counting down, the next level, the field, payouts) and in
// the bar of each of its tables' pages; and what a table page says at the end (who won, the
// viewer's place and prize). The standings page is ./tournament-page.js.
import { html } from '../html.js';

// Its own style sheet, loaded with the first tournament page, bar or form (cash tables need none).
export function useStyles() {
  if (document.getElementById('tournament-css')) return;
  const link = document.createElement('link');
  link.id = 'tournament-css';
  link.rel = 'stylesheet';
  link.href = new URL('../../tournament.css', import.meta.url).href;
  document.head.append(link);
}

export function clockText(seconds) {
  if (seconds == null) return '—';
  const s = Math.ceil(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export const blinds = (b) => `${b.small_blind} / ${b.big_blind}`
  + (b.ante ? ` ante ${b.ante}` : '') + (b.big_blind_ante ? ` (big blind ante ${b.big_blind_ante})` : '');

const STATUS = { paused: 'Paused', finished: 'Finished', registering: 'Registering' };
const ORDINAL = ['1st', '2nd', '3rd'];
export const ordinal = (place) => ORDINAL[place - 1] || `${place}th`;

export function winnerOf(s) {
  const first = (s.standings || []).filter((r) => r.place === 1);
  return first.length ? first.map((r) => r.name).join(' and ') : null;
}

// The field in words: registered before the start, left during play, the winner at the end.
export function fieldText(s) {
  if (s.status === 'registering') return `${s.entries} registered`;
  if (s.status === 'finished') {
    const winner = winnerOf(s);
    return winner ? `${winner} won` : 'Finished';
  }
  return `${s.players_left} of ${s.entries} left`;
}

// The clock's facts, one copy for both screens that show them (the big clock, the table's bar).
function facts(ctrl, playingLabel = null) {
  const s = ctrl.state;
  const playing = s.status === 'running' || s.status === 'paused';
  return {
    status: html`<span class="t-status" data-status=${s.status}>${STATUS[s.status] || (s.on_break ? 'Break' : playingLabel || `Level ${s.level}`)}</span>`,
    handForHand: s.hand_for_hand && playing
      ? html`<span class="hand-for-hand" data-hand-for-hand>Hand for hand</span>` : null,
    level: html`<span data-level=${s.level} class="level-line">Level <span class="level">${s.level}</span>: <span class="blinds">${blinds(s.blinds)}</span></span>`,
    countdown: s.status === 'finished' ? null
      : html`<span class="countdown" role="timer" aria-label=${s.on_break ? 'Time to the end of the break' : 'Time to the next level'}>${clockText(ctrl.remaining())}</span>`,
    next: html`<span class="next">Next: ${s.next ? blinds(s.next) : 'the last level'}</span>`,
    field: html`<span class="field-line"><span class="players-left" data-field=${s.status}>${fieldText(s)}</span>${playing && s.average_stack ? html`<span class="tb-average"> · average <span class="average">${s.average_stack}</span></span>` : null}</span>`,
    payouts: s.payouts.length
      ? html`<ol class="payouts" aria-label="Payouts">${s.payouts.map((p, k) => html`<li><span class="place">${ordinal(k + 1)}</span> ${p}</li>`)}</ol>`
      : null,
  };
}

// The site's top bar on a tournament page: home, the tournament's name, where it stands.
export function tournamentTopbar(s, sub) {
  return html`<header class="topbar">
    <a class="home-link" href="/" aria-label="Home">♠</a>
    <div class="title">
      <strong class="table-name">${s ? s.name : 'Tournament'}</strong>
      ${sub ? html`<span class="sub">${sub}</span>` : null}
    </div>
  </header>`;
}

export function clockView(ctrl) {
  useStyles();
  const s = ctrl.state;
  if (!s) return html`<div class="page tournament-clock-page">${tournamentTopbar(null)}<p>${ctrl.error || 'Loading…'}</p></div>`;
  const f = facts(ctrl, 'Playing'); // the level has its own line here
  const code = encodeURIComponent(ctrl.code);
  return html`<div class="page tournament-clock-page">
    ${tournamentTopbar(s, html`<a href=${`/tournaments/${code}`}>Standings</a>`)}
    <main class="tournament-clock">
      <p>${f.status} ${f.handForHand}</p>
      ${s.status === 'finished' ? endLines(s, null) : html`
        <p>${f.level}</p>
        <p>${f.countdown}</p>
        <p>${f.next}</p>`}
      <p>${f.field}</p>
      ${f.payouts}
    </main>
  </div>`;
}

// A tournament table's bar, in its top bar (the row of the table's name; on a phone, a line
// of its own under it): the clock's facts in short, so the action buttons stay on screen.
export function tournamentBar(ctrl) {
  const s = ctrl && ctrl.state;
  if (!s || s.status === 'finished') return null;
  useStyles();
  const f = facts(ctrl);
  return html`<section class="tournament-bar" aria-label="Tournament clock">
    <span class="tb-clock">${f.status}${f.countdown}</span>
    ${f.handForHand}
    <span class="tb-blinds" data-level=${s.level}><span class="blinds">${blinds(s.blinds)}</span>
      <span class="tb-next">next ${s.next ? blinds(s.next) : '—'}</span></span>
    <span class="tb-field">${f.field}</span>
    ${s.payouts.length ? html`<span class="tb-payouts">pays <ol class="payouts" aria-label="Payouts">${s.payouts.map((p) => html`<li>${p}</li>`)}</ol></span>` : null}
    ${yourPlace(s)}
    ${s.code ? html`<a class="tb-standings" href=${`/tournaments/${encodeURIComponent(s.code)}`}>Standings</a>` : null}
  </section>`;
}

// The end, under a tournament table's top bar: who won, the viewer's place and prize.
export function tournamentEnd(ctrl) {
  const s = ctrl && ctrl.state;
  return s && s.status === 'finished' ? endView(s) : null;
}

function yourPlace(s) {
  const you = s.you;
  if (!you || you.place == null) return null;
  return html`<span class="tb-you" data-your-place=${you.place}>You finished ${ordinal(you.place)}${you.prize ? html` · prize ${you.prize}` : null}</span>`;
}

// The end, on a table page: who won, the viewer's place and prize, the paid places.
function endView(s) {
  return html`<section class="tournament-end" aria-label="Tournament result" data-finished>
    <h2>${s.name}: ${fieldText(s)}</h2>
    ${endLines(s, s.code)}
  </section>`;
}

function endLines(s, code) {
  const you = s.you;
  const paid = (s.standings || []).filter((r) => r.prize > 0 || r.place === 1);
  return html`
    ${you && you.place != null ? html`<p class="your-result" data-your-place=${you.place} data-your-prize=${you.prize}>
      You finished <strong>${ordinal(you.place)}</strong>${you.prize ? html`: prize <strong>${you.prize}</strong>` : ' (no prize)'}.</p>` : null}
    ${paid.length ? html`<ol class="final-places">${paid.map((r) => html`<li data-place=${r.place}>
      <span class="place">${ordinal(r.place)}</span> <span class="who">${r.name}</span>${r.prize ? html` <span class="prize">${r.prize}</span>` : null}</li>`)}</ol>` : null}
    ${code ? html`<p><a href=${`/tournaments/${encodeURIComponent(code)}`}>Standings</a> · <a href="/">Home</a></p>` : null}`;
}

// A tournament table's page once the table closed: at the end the result says it all (the
// bar); before, the table broke and its players play on elsewhere.
export function tournamentClosed(ctrl) {
  if (!ctrl) return null;
  if (!ctrl.closedAt) { // read at once what closed it: the end, or a break
    ctrl.closedAt = performance.now();
    ctrl.load();
  }
  const s = ctrl.state;
  if (s && s.status === 'finished') return null;
  if (!s || ctrl.fetchedAt < ctrl.closedAt) return html`<div class="banner" role="status" data-conn="closed">This table has closed.</div>`;
  return html`<div class="banner" role="status" data-conn="closed">This table broke: its players play on at the other tables.
    ${s && s.code ? html`<a href=${`/tournaments/${encodeURIComponent(s.code)}`}>Standings</a>` : html`<a href="/">Home</a>`}</div>`;
}
