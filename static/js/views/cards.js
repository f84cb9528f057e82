import { html } from '../html.js';
import { cardName } from '../speech.js';
import { WORDS } from '../words.js';

const { faces, suits } = WORDS.cards;

// A card face drawn with CSS and the suit symbol; `data-card` carries the card for tests.
export function Card({ card, size = 'md', mark = '' }) {
  const rank = faces[card[0]] || card[0];
  const suit = card[1];
  return html`<span class=${`card ${size} suit-${suit} ${mark}`} data-card=${card}
    role="img" aria-label=${cardName(card, mark)}>
    <span class="rank">${rank}</span><span class="pip">${suits[suit] ? suits[suit].symbol : ''}</span>
  </span>`;
}

export function CardBack({ size = 'sm' }) {
  return html`<span class=${`card back ${size}`} aria-hidden="true"></span>`;
}

export function CardSlot({ size = 'md' }) {
  return html`<span class=${`card slot ${size}`} aria-hidden="true"></span>`;
}
