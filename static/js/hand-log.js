// The running hand log: every action, street, show and award of the current hand and the two
// before it, in the sentences the screen-reader mode says (speech.js's `describeEvent`: one
// copy of the words), with the cards written short ("A♥ 7♦"). Kept in sessionStorage when a
// hand ends and when the page goes, so a reload keeps what this tab saw.
import { describeEvent, cardsShort } from './speech.js';

const HANDS = 3; // the current hand and the two before it
const LINES = 200; // per hand: a long hand of ten players is about 120

// Events that are not the hand's story: the turn (said to the screen reader, not logged) and
// the hand reader (the player's own reading, shown in the dock).
const SKIP = new Set(['turn', 'hand_reader']);

// What a line is, for its look: streets and deals stand out, awards are the result.
const KIND = { hand_started: 'deal', board: 'street', runs: 'street', award: 'award', shown: 'show', cards_shown: 'show', rabbit: 'street' };

export class HandLog {
  constructor(code) {
    this.key = `omaha.log.${code}`;
    this.hands = []; // [{number, lines: [{id, text, kind}]}], oldest first
    this.next = 1;
    this.restore();
  }

  // One numbered event, read against the state before it.
  hear(state, ev) {
    if (!state || SKIP.has(ev.type)) return;
    const text = describeEvent(state, ev, cardsShort);
    if (!text) return;
    if (ev.type === 'hand_started') this.open(ev.number);
    else if (!this.hands.length) this.open(state && state.hand ? state.hand.number : 0);
    const lines = this.hands[this.hands.length - 1].lines;
    lines.push({ id: this.next++, text, kind: KIND[ev.type] || (ev.type === 'acted' ? `act-${ev.action}` : 'table') });
    if (lines.length > LINES) lines.shift();
  }

  // A hand begins (or the page joins one): its own group.
  open(number) {
    const last = this.hands[this.hands.length - 1];
    if (last && last.number === number) return;
    this.hands.push({ number, lines: [] });
    if (this.hands.length > HANDS) this.hands.shift();
  }

  // The page's snapshot: the hand under way gets its group (continued after a reload).
  joined(state) {
    if (state && state.hand) this.open(state.hand.number);
  }

  save() {
    try { sessionStorage.setItem(this.key, JSON.stringify(this.hands)); } catch { /* storage off */ }
  }

  restore() {
    try {
      const kept = JSON.parse(sessionStorage.getItem(this.key) || '[]');
      if (!Array.isArray(kept)) return;
      this.hands = kept.slice(-HANDS).filter((h) => h && Array.isArray(h.lines));
      this.hands.forEach((h) => h.lines.forEach((l) => { l.id = this.next++; }));
    } catch { this.hands = []; }
  }
}
