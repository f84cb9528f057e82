// Entry point: which page, who the viewer is, and the redraw loop. A change schedules one
// render on the next animation frame, however many messages arrived before it.
import { html, render } from './html.js';
import * as api from './api.js';
import { loadSettings, applySettings, takeNotice } from './settings.js';
import { unlockAudio } from './sound.js';
import { TableCtrl } from './table-ctrl.js';
import { tableView } from './views/table.js';
import { code, session, early } from './boot.js';
import { afterRender } from './focus.js';

// Only the table page's code is imported here (and preloaded: app/api/assets.py); every other
// page's comes by a dynamic import once the address says which page this is.
const homePage = () => Promise.all([import('./views/home.js'), import('./views/past.js'), import('./views/tournament-form.js')]);
const tournaments = () => import('./tournament-ctrl.js');

const root = document.getElementById('app');
const settings = loadSettings();
applySettings(settings);
['pointerdown', 'keydown'].forEach((t) => window.addEventListener(t, unlockAudio, { once: true }));

let view = () => null;
let frame = 0;
// The table the server drew into the page for its first paint (app/api/first_paint.py): a
// picture of the same view, replaced by the live one in the frame of the first render.
let serverDrawn = !!root.querySelector('[data-first-paint]');
function paint() {
  if (serverDrawn) { serverDrawn = false; root.textContent = ''; }
  render(view(), root);
}
function redraw() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    paint();
    afterRender();
    window.__omaha.renders += 1;
    if (!window.__omaha.drawing && window.__omaha.ctrl && window.__omaha.ctrl.state) {
      // The first snapshot on screen, for bench/client.py: stamped by a task posted from this
      // frame, which runs once the frame's style, layout and paint are done.
      window.__omaha.drawing = true;
      const after = new MessageChannel();
      after.port1.onmessage = () => { window.__omaha.drawn = performance.now(); };
      after.port2.postMessage(0);
    }
  });
}
window.__omaha = { renders: 0, redrawNow: () => { cancelAnimationFrame(frame); frame = 0; paint(); } };

function homeCtrl(me, { PastCtrl }, { TournamentForm }) {
  const home = {
    me,
    nameDraft: me ? me.name : '',
    tables: [],
    form: null, // the new table form's defaults (views/home.js)
    moreOpen: false,
    busy: false,
    message: null,
    redraw,
    past: new PastCtrl(redraw), // closed tables, past tournaments, sign-in links
    next: null, // a table to open once the viewer has a name
    tournament: new TournamentForm(redraw),
    async saveName(name) {
      try {
        home.me = await api.setName(name.trim());
        home.message = null;
        if (home.next) { location.assign(`/t/${encodeURIComponent(home.next)}`); return; }
        await home.load();
      } catch (e) { home.message = e.message; }
      redraw();
    },
    async load() {
      home.past.load();
      try { home.tables = await api.myTables(); } catch { home.tables = []; }
      redraw();
    },
    join(text) {
      const t = text.trim();
      const m = t.match(/\/t\/([A-Za-z0-9_-]+)/);
      const c = m ? m[1] : t;
      if (/^[A-Za-z0-9_-]{1,64}$/.test(c)) location.assign(`/t/${c}`);
      else { home.message = 'That is not an invite link or a table code.'; redraw(); }
    },
    async create() {
      home.busy = true;
      redraw();
      try {
        const made = await api.createTable(home.form);
        location.assign(`/t/${made.code}`);
      } catch (e) {
        home.message = e.message;
        home.busy = false;
        redraw();
      }
    },
  };
  return home;
}

// A tournament's page: its state, and a first-time visitor's name (and registration).
function tournamentPage(code, me, { TournamentCtrl, follow }) {
  const page = {
    me,
    message: null,
    copied: false,
    ctrl: new TournamentCtrl(code, me, redraw, {
      onState: (s, before) => {
        // Seated while this page is open (the start, a late registration): off to the table.
        if (before && !before.your_table && s.your_table) {
          follow(s.your_table, `The tournament has started: you play at ${s.your_table_name || 'this table'}.`);
        }
      },
    }),
    async join(name, register) {
      try {
        page.me = page.ctrl.me = await api.setName(name.trim());
        page.message = null;
        if (register) await page.ctrl.act('register');
        else await page.ctrl.load();
      } catch (e) { page.message = e.message; }
      redraw();
    },
    async copy(link) {
      try { await navigator.clipboard.writeText(link); page.copied = true; } catch { page.copied = false; }
      redraw();
    },
  };
  return page;
}

async function start() {
  const path = location.pathname;
  const replay = path.match(/^\/h\/(\d+)$/);
  const atTable = path.match(/^\/t\/([^/]+)\/h\/(\d+)$/);
  if (replay || atTable) {
    // A hand link: what it shows is up to the server (who the viewer is, `?code=`). By the
    // server's number, or by the table's code and the number players say.
    const where = replay
      ? { number: Number(replay[1]), code: new URLSearchParams(location.search).get('code') }
      : { at: { code: decodeURIComponent(atTable[1]), n: Number(atTable[2]) } };
    const [{ ReplayCtrl }, { replayView }] = await Promise.all([import('./replay.js'), import('./views/replay.js')]);
    const r = new ReplayCtrl(where, redraw);
    window.addEventListener('keydown', (e) => r.key(e));
    window.__omaha.replay = r;
    view = () => replayView(r);
    redraw();
    r.load();
    return;
  }
  if (path === '/signin') {
    const { signIn, signInView } = await import('./views/past.js');
    const page = { me: null, message: null };
    view = () => signInView(page);
    redraw();
    signIn(redraw, page);
    return;
  }
  const me = await session;
  if (path === '/hands') {
    const { MyHandsCtrl, myHandsView } = await import('./views/my-hands.js');
    const mine = new MyHandsCtrl(me, redraw);
    window.__omaha.myHands = mine;
    view = () => myHandsView(mine);
    redraw();
    if (me) mine.start();
    return;
  }
  const player = path.match(/^\/players\/([^/]+)$/);
  if (player) {
    const { PlayerCtrl, playerView } = await import('./views/stats.js');
    const p = new PlayerCtrl(decodeURIComponent(player[1]), redraw);
    view = () => playerView(p);
    redraw();
    p.start();
    return;
  }
  const tournament = location.pathname.match(/^\/tournaments\/([^/]+)(\/clock)?$/);
  if (tournament) {
    const [t, { clockView }, { standingsView }] = await Promise.all([
      tournaments(), import('./views/tournament.js'), import('./views/tournament-page.js')]);
    const page = tournamentPage(decodeURIComponent(tournament[1]), me, t);
    window.__omaha.tournament = page.ctrl;
    view = () => (tournament[2] ? clockView(page.ctrl) : standingsView(page));
    page.ctrl.start();
    return;
  }
  if (code && me) {
    const ctrl = new TableCtrl(code, me, settings, redraw, await early);
    window.addEventListener('keydown', (e) => ctrl.key(e));
    window.__omaha.ctrl = ctrl;
    // A tournament's table shows its clock: read every two seconds, once its snapshot says
    // it is one (a cash table never fetches this code). After a move the player's seat is at
    // another table: the page goes there.
    ctrl.onTournament = async () => {
      ctrl.onTournament = null;
      const { TournamentCtrl, follow } = await tournaments();
      ctrl.tournament = new TournamentCtrl(null, me, redraw, {
        url: `/api/tournaments/table/${encodeURIComponent(code)}`, every: 2000,
        active: () => !!(ctrl.state && ctrl.state.table.config.tournament),
        onState: (t) => {
          if (t.your_table && t.your_table !== code) follow(t.your_table, `You moved to ${t.your_table_name || 'another table'}.`);
        },
      });
      ctrl.tournament.start();
    };
    view = () => tableView(ctrl);
    ctrl.start();
    const notice = takeNotice();
    if (notice) {
      window.__omaha.notice = notice; // what the page was told on arrival (the tests read it)
      ctrl.flash(notice);
      redraw();
    }
  } else {
    const [{ homeView, DEFAULTS }, past, form] = await homePage();
    const home = homeCtrl(me, past, form);
    home.form = { ...DEFAULTS };
    home.next = code || null;
    view = () => (code ? html`<div class="join-note">You are invited to a table. Pick a name to join.</div>${homeView(home)}` : homeView(home));
    if (me) home.load();
  }
  redraw();
}

start();
