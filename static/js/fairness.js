// Verifiable deals in the browser (docs/fairness.md). Every opening the server sends (a card,
// its deck position and salt) is checked against the commitments it published for that hand
// in `hand_started`, before the first action: SHA-256 by Web Crypto. The first commitments of
// a hand are the ones that count; a later different set (a snapshot after a restart) is a
// failure too. While seated, a fresh random client seed goes to the server before each hand.
// The session's check (./deal-replay.js) is fetched when a seed is revealed: a table page
// seldom sees that.

const enc = new TextEncoder();
const LABEL = enc.encode('deal-v1/commit');
const KEPT = 30; // hands remembered

function hexBytes(hex) {
  if (typeof hex !== 'string' || hex.length % 2 || /[^0-9a-f]/i.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function hexOf(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  parts.forEach((p) => { out.set(p, at); at += p.length; });
  return out;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

// SHA-256("deal-v1/commit" ‖ position ‖ card ‖ salt), hex: what the opening claims.
async function commitmentOf(o) {
  const salt = hexBytes(o.salt);
  if (!salt || !Number.isInteger(o.position) || o.position < 0 || o.position > 51) return null;
  return hexOf(await sha256(concat(LABEL, Uint8Array.of(o.position), enc.encode(String(o.card)), salt)));
}

// RFC 6962's Merkle tree hash, as the server computes the root.
async function merkleRoot(leaves) {
  if (leaves.length === 1) return sha256(concat(Uint8Array.of(0), leaves[0]));
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  const [left, right] = await Promise.all([merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k))]);
  return sha256(concat(Uint8Array.of(1), left, right));
}

export class DealCheck {
  constructor({ redraw, sendSeed, code }) {
    this.redraw = redraw;
    this.sendSeed = sendSeed;
    this.code = code;
    this.session = null; // after a reveal: {state: checking|verified|failed, verified, problems}
    this.hands = new Map(); // hand id -> {number, commitments, checked, pending, bad}
    this.seededAfter = null; // the hand count when the last client seed was sent
    // Web Crypto exists only in a secure context (HTTPS, or this machine).
    this.available = !!(globalThis.crypto && crypto.subtle && globalThis.isSecureContext !== false);
  }

  // Every message, after the table state took it in.
  observe(m, state) {
    if (m.type === 'snapshot') {
      const h = m.hand;
      if (h && h.deal) { this.commit(h.id, h.number, h.deal); this.open(h.id, h.openings || []); }
    } else if (m.type === 'hand_started' && m.deal) {
      this.commit(m.hand, m.number, m.deal);
    } else if (Array.isArray(m.openings) && m.hand) {
      this.open(m.hand, m.openings);
    } else if (m.type === 'seed_revealed') {
      this.checkSession(m.seed_hash);
    }
    this.seed(m, state);
  }

  entry(id, number) {
    let h = this.hands.get(id);
    if (!h) {
      h = { number, commitments: null, checked: 0, pending: 0, bad: [], seen: new Set() };
      this.hands.set(id, h);
      if (this.hands.size > KEPT) this.hands.delete(this.hands.keys().next().value);
    }
    return h;
  }

  commit(id, number, deal) {
    const h = this.entry(id, number);
    const list = Array.isArray(deal.commitments) ? deal.commitments : [];
    if (h.commitments) {
      if (h.commitments.join() !== list.join()) h.bad.push('its commitments changed after they were published');
      return;
    }
    h.commitments = list.slice();
    const leaves = list.map(hexBytes);
    if (leaves.length !== 52 || leaves.some((l) => !l || l.length !== 32)) {
      h.bad.push('it was not committed to 52 cards');
      return;
    }
    this.track(h, merkleRoot(leaves).then((root) => {
      if (hexOf(root) !== deal.root) h.bad.push('its commitments do not make its root');
    }));
  }

  open(id, openings) {
    const h = this.hands.get(id);
    if (!h || !h.commitments) {
      if (openings.length) this.entry(id, null).bad.push('cards came before the commitments');
      return;
    }
    openings.forEach((o) => {
      const key = `${o.position}:${o.card}:${o.salt}`;
      if (h.seen.has(key)) return; // a snapshot sends the same openings again
      h.seen.add(key);
      this.track(h, commitmentOf(o).then((c) => {
        if (c !== null && c === h.commitments[o.position]) h.checked += 1;
        else h.bad.push(`the ${o.card} does not match the card committed to`);
      }));
    });
  }

  track(h, promise) {
    if (!this.available) return;
    h.pending += 1;
    promise
      .catch(() => { h.bad.push('the check could not run'); })
      .finally(() => { h.pending -= 1; this.redraw(); });
  }

  // The session ended and its seed was revealed: recompute every deck of it from the table's
  // export, and compare with the commitments this page received.
  async checkSession(seedHash) {
    if (!this.available || !this.code) return;
    this.session = { state: 'checking', verified: 0, problems: [] };
    this.redraw();
    try {
      const r = await fetch(`/api/tables/${encodeURIComponent(this.code)}/deals.json`, { credentials: 'same-origin' });
      if (!r.ok) throw new Error(`the export answered ${r.status}`);
      const live = new Map([...this.hands].filter(([, h]) => h.commitments).map(([id, h]) => [id, h.commitments]));
      const { verifySession } = await import('./deal-replay.js');
      const { verified, problems } = await verifySession(await r.json(), seedHash, live);
      this.session = { state: problems.length ? 'failed' : 'verified', verified, problems };
    } catch (e) {
      this.session = { state: 'failed', verified: 0, problems: [`the session could not be checked (${e.message})`] };
    }
    this.redraw();
  }

  // What to show for a hand: none (no commitments), unavailable, checking, verified, failed.
  status(id) {
    const h = id && this.hands.get(id);
    if (!h || !h.commitments) return { kind: h && h.bad.length ? 'failed' : 'none', bad: h ? h.bad : [] };
    if (h.bad.length) return { kind: 'failed', bad: h.bad, number: h.number };
    if (!this.available) return { kind: 'unavailable' };
    if (h.pending) return { kind: 'checking', checked: h.checked };
    return { kind: 'verified', checked: h.checked };
  }

  // Every remembered hand whose check failed, newest last.
  failures() {
    return [...this.hands.values()].filter((h) => h.bad.length);
  }

  // A fresh client seed before each hand while seated: after a hand ends, on sitting down,
  // and on (re)joining; at most once per hand.
  seed(m, state) {
    if (!state || state.you.seat == null || !this.sendSeed) return;
    const mine = m.type === 'seat' && m.player_id === state.you.player_id;
    if (m.type !== 'hand_ended' && m.type !== 'snapshot' && !mine) return;
    const after = state.table.hands_played;
    if (this.seededAfter === after) return;
    this.seededAfter = after;
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    this.sendSeed(hexOf(bytes));
  }
}
