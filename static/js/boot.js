// The first module to run, on its own (an async script, its only imports the socket layer and
// the REST calls): the session check and, on a table page, the WebSocket start at once, so the
// snapshot is on its way while the view code is still loading. `main.js` takes them over;
// what the socket received before that is kept and handed on in order.
//
// A table page may carry who the viewer is and the table's snapshot in a data block
// (`#boot-data`, app/api/table_page.py): then there is no session check, the snapshot is the
// first message handed on, and the socket resumes from its `stream` and `seq`.
import { TableSocket } from './socket.js';
import { whoami } from './api.js';

// A table page is `/t/{code}` (a hand of it, `/t/{code}/h/{n}`, is the replayer's).
export const code = (location.pathname.match(/^\/t\/([^/]+)\/?$/) || [])[1] || null;
const replayer = /^\/(h\/|t\/[^/]+\/h\/)/.test(location.pathname);

const embedded = code ? readEmbedded() : null;

// A hand link's page needs no session check: what it shows is up to the server.
export const session = replayer ? null
  : embedded ? Promise.resolve(embedded.me) : whoami().catch(() => null);

// Without a name the server refuses the socket (and the home page asks for one), so the socket
// waits for the session check, unless this browser had a name last time: then both at once.
const NAMED = 'omaha.named';
const named = remembered();
if (session) session.then((me) => remember(!!me));

export const early = !code || !session ? null
  : embedded ? Promise.resolve(startSocket(code, embedded.snapshot)) : openSocket(code);

function readEmbedded() {
  const block = document.getElementById('boot-data');
  if (!block) return null;
  try {
    const data = JSON.parse(block.textContent);
    return data && data.me && data.snapshot && data.snapshot.type === 'snapshot' ? data : null;
  } catch { return null; }
}

function openSocket(tableCode) {
  if (!named) return session.then((me) => (me ? startSocket(tableCode) : null));
  const opened = startSocket(tableCode);
  return session.then((me) => {
    if (me) return opened;
    opened.socket.close(); // the name is gone (a new browser profile, an expired session)
    return null;
  });
}

function remembered() {
  try { return localStorage.getItem(NAMED) === '1'; } catch { return false; }
}

function remember(yes) {
  try {
    if (yes) localStorage.setItem(NAMED, '1');
    else localStorage.removeItem(NAMED);
  } catch { /* storage off: the socket waits for the session check */ }
}

function startSocket(tableCode, snapshot = null) {
  const held = [];
  let status = null;
  const socket = new TableSocket(tableCode, {
    onMessage: (m) => held.push(m),
    onStatus: (s) => { status = s; },
  });
  if (snapshot) socket.receive(snapshot); // held first; the socket resumes after its seq
  socket.connect();
  return {
    socket,
    handTo({ onMessage, onStatus }) {
      socket.onMessage = onMessage;
      socket.onStatus = onStatus;
      if (status) onStatus(status);
      held.splice(0).forEach(onMessage);
    },
  };
}

// A page the server drew the table into (app/api/first_paint.py) names no module but this one:
// the view's modules are fetched once that drawing has been painted (a frame, then a task), so
// that their 25 requests do not compete with its first frame for the CPU. In a hidden tab
// (no frames there) at once, and never later than LATEST ms.
const LATEST = 250;
const later = document.querySelector('script[data-later]');
if (later) {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    for (const href of later.dataset.later.split(' ')) {
      const link = document.createElement('link');
      link.rel = 'modulepreload';
      link.href = href;
      document.head.append(link);
    }
    import('./main.js');
  };
  const afterPaint = () => {
    if (document.visibilityState === 'hidden') return start();
    requestAnimationFrame(() => setTimeout(start));
    setTimeout(start, LATEST);
  };
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', afterPaint, { once: true });
  } else afterPaint();
}
