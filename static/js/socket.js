// The socket layer, apart from the view: one WebSocket to one table, numbered events with gap
// detection, resume with `stream` and `since`, reconnection with backoff, and a queue for what
// is sent while the connection is down (docs/protocol.md section 3).

const BACKOFF = [250, 500, 1000, 2000, 4000, 8000];
// The client's version this page runs: its modules' URLs are /static/<version>/ (app/api/
// assets.py). Named on the socket, so the server can say when it has a newer one
// (new-version.js); null (not named) for modules served from anywhere else.
export const CLIENT = (import.meta.url.match(/\/static\/([0-9a-f]{1,32})\//) || [])[1] || null;
const PING_EVERY = 25000;

export class TableSocket {
  constructor(code, { onMessage, onStatus }) {
    this.code = code;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.stream = null;
    this.seq = 0;
    this.ws = null;
    this.queue = [];
    this.attempt = 0;
    this.timer = null;
    this.pinger = null;
    this.stopped = false;
    this.status = 'connecting';
    this.opened = false; // ever
    this.retryAt = 0;
    window.addEventListener('online', () => this.reconnectNow());
    window.addEventListener('offline', () => this.drop());
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // batch=1: a burst of messages comes as one frame, a JSON array (applied, then drawn once)
    let url = `${proto}//${location.host}/ws/tables/${encodeURIComponent(this.code)}?batch=1`;
    if (this.stream) url += `&stream=${encodeURIComponent(this.stream)}&since=${this.seq}`;
    if (CLIENT) url += `&client=${CLIENT}`;
    return url;
  }

  setStatus(status) {
    this.status = status;
    this.onStatus(status);
  }

  connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    if (navigator.onLine === false) { this.retry(); return; } // the 'online' event calls back
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.opened = true;
      this.setStatus('open');
      const queued = this.queue.splice(0);
      queued.forEach((m) => ws.send(JSON.stringify(m)));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.sendNow({ type: 'ping' }), PING_EVERY);
    };
    ws.onmessage = (e) => {
      if (this.ws !== ws) return;
      let message;
      try { message = JSON.parse(e.data); } catch { return; }
      if (!Array.isArray(message)) { this.receive(message); return; }
      for (const m of message) {
        if (this.receive(m) === false) return; // a gap closed it: the rest comes after the resume
      }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pinger);
      if (e.code === 4404) { this.stopped = true; this.setStatus('gone'); return; }
      if (e.code === 4410) { this.stopped = true; this.setStatus('closed'); return; } // the host closed it
      this.retry();
    };
  }

  receive(message) {
    if (message.type === 'snapshot') {
      this.snapshots = (this.snapshots || 0) + 1;
      this.stream = message.stream;
      this.seq = message.seq;
    } else if (typeof message.seq === 'number') {
      if (message.seq <= this.seq) return; // already applied (a resend after a resume)
      if (message.seq !== this.seq + 1) {
        // A hole in the sequence: our state can no longer be trusted. Start over from a
        // fresh snapshot rather than guess.
        this.stream = null;
        this.ws.close(4000, 'gap');
        return false;
      }
      this.seq = message.seq;
    }
    this.onMessage(message);
  }

  retry() {
    if (this.stopped) return;
    const base = BACKOFF[Math.min(this.attempt, BACKOFF.length - 1)];
    const delay = base + Math.floor(Math.random() * base * 0.3);
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.setStatus('offline');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  // The browser says the network is gone: say so at once instead of waiting for a timeout.
  drop() {
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      clearInterval(this.pinger);
      try { ws.close(4001, 'offline'); } catch { /* already closed */ }
    }
    this.retry();
  }

  reconnectNow() {
    if (this.ws && this.ws.readyState <= 1) return;
    this.attempt = 0;
    clearTimeout(this.timer);
    this.connect();
  }

  sendNow(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  // Sent now, or as soon as the connection is back (the server's at-most-once `counter`
  // makes a late action safe: it is applied once or refused as stale).
  send(message) {
    if (!this.sendNow(message)) this.queue.push(message);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000, 'bye');
  }
}
