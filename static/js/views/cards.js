import { html } from '../html.js';

const SUITS = { s: '♠', h: '♥', d: '♦', c: '♣' };
const SUIT_NAMES = { s: 'spades', h: 'hearts', d: 'diamonds', c: 'clubs' };
const RANK_NAMES = { T: '10', J: 'J', Q: 'Q', K: 'K', A: 'A' };

// A card face drawn with CSS and the suit symbol; `data-card` carries the card for tests.
export function Card({ card, size = 'md', mark = '' }) {
  const rank = RANK_NAMES[card[0]] || card[0];
  const suit = card[1];
  return html`<span class=${`card ${size} suit-${suit} ${mark}`} data-card=${card}
    role="img" aria-label=${`${rank} of ${SUIT_NAMES[suit]}`}>
    <span class="rank">${rank}</span><span class="pip">${SUITS[suit]}</span>
  </span>`;
}

export function CardBack({ size = 'sm' }) {
  return html`<span class=${`card back ${size}`} aria-hidden="true"></span>`;
}

export function CardSlot({ size = 'md' }) {
  return html`<span class=${`card slot ${size}`} aria-hidden="true"></span>`;
}
