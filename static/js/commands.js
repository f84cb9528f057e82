// The screen-reader mode's command box: typed words mapped onto the actions and amounts the
// server offered in the turn (`legal`). Nothing is decided here that the server did not
// offer; what is not offered is answered with what is.
import { boardText, myCardsText, seatsText, statusText, turnOptions } from './speech.js';
import { potTotal } from './table-state.js';

export const HELP = 'Commands: fold, check, call, bet or raise with an amount (raise 60), all in, pot, half pot, min; '
  + 'show or muck at the showdown; yes or no to run it twice. To hear the table: cards, board, pot, seats, status, time.';

const WORDS = {
  fold: 'fold', f: 'fold',
  check: 'check', x: 'check', k: 'check',
  call: 'call', c: 'call',
  bet: 'wager', raise: 'wager', b: 'wager', r: 'wager',
  allin: 'all-in', 'all-in': 'all-in', 'all in': 'all-in', shove: 'all-in', jam: 'all-in', max: 'all-in',
  pot: 'pot', 'pot size': 'pot', 'half': 'half', 'half pot': 'half', min: 'min', 'min raise': 'min',
  show: 'show', muck: 'muck',
  yes: 'yes', twice: 'yes', 'run it twice': 'yes', y: 'yes', no: 'no', once: 'no', n: 'no',
  help: 'help', '?': 'help', h: 'help',
  cards: 'cards', hand: 'cards', board: 'board', seats: 'seats', stacks: 'seats',
  status: 'status', s: 'status', repeat: 'repeat', turn: 'repeat', time: 'time', clock: 'time',
};

// "Raise to 60" -> {word: 'wager', amount: 60}; "all in" -> {word: 'all-in'}.
export function parse(text) {
  const t = String(text || '').toLowerCase().replace(/[.!]+$/, '').replace(/\s+/g, ' ').trim();
  const m = t.match(/^(.*?)(?:(?:^|\s+)(?:to\s+)?(-?\d+(?:\.\d+)?))?$/);
  const head = (m[1] || '').replace(/\s+to$/, '').trim();
  const amount = m[2] != null ? Number(m[2]) : null;
  if (!head && amount != null) return { word: 'wager', amount }; // a bare number
  return { word: WORDS[head] || null, amount, text: t };
}

const ACTIONS = new Set(['fold', 'check', 'call', 'wager', 'all-in', 'pot', 'half', 'min', 'show', 'muck', 'yes', 'no']);

// Run one command; returns what to say (an action sent says nothing: its event will).
export function runCommand(ctrl, text) {
  const { word, amount } = parse(text);
  const s = ctrl.state;
  if (!s) return 'Not connected yet.';
  const h = s.hand;
  if (!word) return `"${String(text).trim()}" is not a command. Type help for the list.`;
  switch (word) {
    case 'help': return HELP;
    case 'cards': return myCardsText(s);
    case 'board': return boardText(s);
    case 'seats': return seatsText(s);
    case 'status': return statusText(s);
    case 'repeat': return statusText(s);
    case 'time': {
      const stopped = h && !h.ended && h.stopped && h.timeout != null;
      const left = stopped ? Math.max(0, Math.ceil(h.timeout))
        : h && !h.ended && h.deadline ? Math.max(0, Math.ceil((h.deadline - performance.now()) / 1000)) : null;
      if (left == null) return 'No clock is running.';
      const whose = ctrl.isMyTurn() ? 'You have' : `${s.seats[h.actor] ? s.seats[h.actor].name : 'The player to act'} has`;
      return `${whose} ${left} seconds${h.inBank ? ' of time bank' : ''}${stopped ? ': the clock is stopped while the table is paused' : ''}.`;
    }
    default: break;
  }
  if (word === 'pot' && !ctrl.isMyTurn()) return h && !h.ended ? `Pot ${potTotal(h)}.` : 'No pot: no hand is being played.';
  if (word === 'show' && h && h.ended && h.canShow) { ctrl.command('show', { hand: h.id }); return null; }
  if (!ACTIONS.has(word)) return HELP;
  if (!ctrl.isMyTurn()) {
    if (!h || h.ended) return 'No hand is being played.';
    if (s.you.seat == null) return 'You are watching, not playing.';
    return h.actor != null ? `Not your turn: ${s.seats[h.actor] ? s.seats[h.actor].name : `seat ${h.actor + 1}`} is to act.` : 'Not your turn.';
  }
  if (ctrl.pending) return 'Your last action is on its way to the server.';
  const legal = h.legal;
  const can = (k) => legal.actions.includes(k);
  const options = () => `You can ${turnOptions(s, legal, h.phase)}.`;
  const no = (what) => `Not possible: ${what}. ${options()}`;
  if (h.phase === 'run-it-twice') {
    if (word !== 'yes' && word !== 'no') return 'Everyone is all in: type yes to run it twice, or no for one run.';
    ctrl.act('run-twice', { agree: word === 'yes' });
    return null;
  }
  if (h.phase === 'showdown') {
    if ((word === 'show' || word === 'muck') && can(word)) { ctrl.act(word); return null; }
    return no(word === 'muck' ? 'you must show this hand' : 'this is the showdown');
  }
  const kind = ctrl.wagerKind();
  const me = h.players[s.you.seat];
  switch (word) {
    case 'fold':
      if (!can('fold')) return no('you cannot fold');
      ctrl.fold(); // asks once when checking is free
      return ctrl.ui.confirmFold ? 'Checking is free. Type fold again to fold anyway, or check.' : null;
    case 'check':
      if (!can('check')) return no(`you cannot check, ${legal.call} to call`);
      ctrl.act('check');
      return null;
    case 'call':
      if (!can('call')) return no('there is nothing to call');
      ctrl.act('call');
      return null;
    case 'all-in':
      if (kind && me && legal.max_to >= me.stack + me.bet) { ctrl.act(kind, { amount: legal.max_to }); return null; }
      if (can('call') && me && legal.call >= me.stack) { ctrl.act('call'); return null; }
      return no('you cannot go all in now');
    default: break;
  }
  // A bet or raise: to an amount, the pot, half of it or the least.
  if (!kind) return no('you cannot bet or raise now');
  let to = amount;
  if (word === 'pot') to = legal.pot_to != null ? legal.pot_to : legal.max_to;
  else if (word === 'half') to = ctrl.presetAmount(0.5);
  else if (word === 'min') to = legal.min_to;
  else if (to == null) {
    if (legal.min_to === legal.max_to) to = legal.min_to; // fixed limit: the one amount
    else return `Say how much: ${kind} from ${legal.min_to} to ${legal.max_to}, for example ${kind} ${legal.min_to}.`;
  }
  if (!Number.isInteger(to)) return `Say a whole number of chips, for example ${kind} ${legal.min_to}.`;
  if (to < legal.min_to || to > legal.max_to) return no(`${kind} ${to}`);
  ctrl.act(kind, { amount: to });
  return null;
}
