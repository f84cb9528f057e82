// Recomputing a revealed session's decks in the browser (docs/fairness.md, deal-v1): from the
// server seed, the table id, each hand's number and client seeds, with Web Crypto's HMAC and
// SHA-256, exactly as app/poker/fairness.py does. `verifySession` checks a deals export's
// session against its seed and against the commitments this page itself received live.

const enc = new TextEncoder();
const RANKS = '23456789TJQKA';
const SUITS = 'cdhs';

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  parts.forEach((p) => { out.set(p, at); at += p.length; });
  return out;
}

const field = (b) => concat(Uint8Array.of(b.length >> 8, b.length & 255), b);

function u64(n) {
  const out = new Uint8Array(8);
  let v = BigInt(n);
  for (let i = 7; i >= 0; i -= 1) { out[i] = Number(v & 255n); v >>= 8n; }
  return out;
}

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

async function hmac(key, data) {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
}

// The deck of one hand: card strings, position 0 dealt first.
export async function dealDeck(key, table, number, clientSeeds) {
  const message = concat(field(enc.encode('deal-v1/deck')), field(enc.encode(table)), u64(number),
    Uint8Array.of(clientSeeds.length >> 8, clientSeeds.length & 255),
    ...clientSeeds.map((s) => field(enc.encode(s))));
  const words = [];
  let counter = 0;
  const word = async () => {
    if (!words.length) {
      const c = Uint8Array.of(counter >>> 24, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255);
      const block = await hmac(key, concat(message, c));
      counter += 1;
      const view = new DataView(block.buffer);
      for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i));
    }
    return words.shift();
  };
  const deck = [];
  for (let r = 0; r < 13; r += 1) for (let s = 0; s < 4; s += 1) deck.push(RANKS[r] + SUITS[s]);
  for (let i = 51; i > 0; i -= 1) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let w = await word();
    while (w >= limit) w = await word();
    const j = w % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

async function commitments(key, table, number, deck) {
  const head = concat(field(enc.encode('deal-v1/salt')), field(enc.encode(table)), u64(number));
  const label = enc.encode('deal-v1/commit');
  return Promise.all(deck.map(async (card, p) => {
    const salt = (await hmac(key, concat(head, Uint8Array.of(p)))).slice(0, 16);
    const digest = await crypto.subtle.digest('SHA-256', concat(label, Uint8Array.of(p), enc.encode(card), salt));
    return hexOf(new Uint8Array(digest));
  }));
}

// {verified, problems}: every hand of the export's session with this seed hash recomputed;
// `live` maps a hand id to the commitments this page received for it.
export async function verifySession(exported, seedHash, live) {
  const session = (exported.sessions || []).find((s) => s.seed_hash === seedHash);
  const problems = [];
  if (!session || !session.seed) return { verified: 0, problems: ['the export has no revealed seed for this session'] };
  const seed = hexBytes(session.seed);
  const digest = hexOf(new Uint8Array(await crypto.subtle.digest('SHA-256', seed)));
  if (digest !== seedHash) return { verified: 0, problems: ['the revealed seed is not the one committed to'] };
  const key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  let verified = 0;
  for (const h of session.hands) {
    const deck = await dealDeck(key, exported.table, h.number, h.client_seeds);
    const mine = await commitments(key, exported.table, h.number, deck);
    const seen = live.get(h.hand);
    if (mine.join() !== h.commitments.join()) problems.push(`hand #${h.number}: its deck is not the one the seeds make`);
    else if (seen && seen.join() !== mine.join()) problems.push(`hand #${h.number}: not the deck this page was shown`);
    else verified += 1;
  }
  return { verified, problems };
}
