// Sounds made with WebAudio (no sound file): "your turn" (two short tones) and the dealer's
// voice of the table: a knock for a check, chips for a bet or call, a swish for a fold, a
// rising chord for a win. Browsers start audio only after a user gesture, so the context is
// created on the first click or key press; before that, nothing plays.
// A running context keeps the audio thread rendering silence (about 2 % of a core, a phone's
// battery): it is suspended once its last tone has sounded and resumed by the next sound
// (the page's first gesture allows that for the rest of its life).
let ctx = null;
let quietAt = 0; // the context's time when the last tone scheduled ends
let resting = null;

export function unlockAudio() {
  if (ctx) return;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try { ctx = new Ctx(); } catch { ctx = null; return; }
  rest();
}

function rest() {
  clearTimeout(resting);
  const left = Math.max(0, quietAt - ctx.currentTime);
  resting = setTimeout(() => {
    if (ctx.state !== 'running') return; // resting, or resuming (which rests it again after)
    if (ctx.currentTime < quietAt) { rest(); return; } // its clock ran late: wait on
    ctx.suspend();
  }, left * 1000 + 200);
}

// One tone: `freq` (a number, or [from, to] for a glide) at `at` seconds from now.
function tone(freq, at, length, { type = 'sine', volume = 0.2 } = {}) {
  const now = ctx.currentTime;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  const [from, to] = Array.isArray(freq) ? freq : [freq, freq];
  osc.frequency.setValueAtTime(from, now + at);
  if (to !== from) osc.frequency.exponentialRampToValueAtTime(to, now + at + length);
  gain.gain.setValueAtTime(0.0001, now + at);
  gain.gain.exponentialRampToValueAtTime(volume, now + at + Math.min(0.02, length / 4));
  gain.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(now + at);
  osc.stop(now + at + length + 0.02);
  quietAt = Math.max(quietAt, now + at + length + 0.02);
  rest();
}

function ready() {
  if (!ctx) return false;
  if (ctx.state === 'suspended') Promise.resolve(ctx.resume()).then(rest, () => {});
  return true;
}

export function turnSound() {
  if (!ready()) return;
  tone(660, 0, 0.18);
  tone(880, 0.12, 0.18);
}

// What each action sounds like: [frequency or glide, start, length, options] per tone.
const ACTIONS = {
  check: [[170, 0, 0.06, { type: 'triangle', volume: 0.25 }], [170, 0.09, 0.06, { type: 'triangle', volume: 0.2 }]],
  bet: [[2400, 0, 0.05, { type: 'triangle', volume: 0.08 }], [3100, 0.04, 0.06, { type: 'triangle', volume: 0.07 }],
    [2700, 0.09, 0.07, { type: 'triangle', volume: 0.06 }]],
  fold: [[[520, 140], 0, 0.16, { type: 'sine', volume: 0.06 }]],
  win: [[523, 0, 0.14, { volume: 0.12 }], [659, 0.08, 0.14, { volume: 0.12 }], [784, 0.16, 0.22, { volume: 0.12 }]],
};

// One action sound per message from the server: a burst of events handled at once (a resume
// after a drop) plays its first, not a clatter; a win is always heard (it ends the hand,
// often in the message of the last action). Told apart by the task that handles them, not by
// the time between them, so a quick check after a call still knocks.
let inBurst = false;

export function actionSound(kind) {
  const tones = ACTIONS[kind];
  if (!tones || !ready()) return;
  if (kind !== 'win') {
    if (inBurst) return;
    inBurst = true;
    queueMicrotask(() => { inBurst = false; }); // once this message is handled
  }
  tones.forEach(([freq, at, length, options]) => tone(freq, at, length, options));
}
