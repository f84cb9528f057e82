// The first module to run, on its own (an async script, its only imports the socket layer and
// the REST calls): the session check and, on a table page, the WebSocket start at once, so the
// snapshot is on its way while the view code is still loading. `main.js` takes them over;
// what the socket received before that is kept and handed on in order.
import { TableSocket } from './socket.js';
import { whoami } from './api.js';

export const code = (location.pathname.match(/^\/t\/([^/]+)/) || [])[1] || null;

// A hand link's page (`/h/...`) needs no session check: what it shows is up to the server.
export const session = location.pathname.startsWith('/h/') ? null : whoami().catch(() => null);

// Opened once the session check says the viewer has a name (without one, the server would
// refuse the socket and the home page asks for a name first).
export const early = code && session ? session.then((me) => (me ? startSocket(code) : null)) : null;

function startSocket(tableCode) {
  const held = [];
  let status = null;
  const socket = new TableSocket(tableCode, {
    onMessage: (m) => held.push(m),
    onStatus: (s) => { status = s; },
  });
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
