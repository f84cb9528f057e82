// The one view library: Preact's virtual DOM, written with htm's tagged templates (no build).
// Text is always set as text: a player's name can never become markup.
import { h, render } from '../vendor/preact.mjs';
import htm from '../vendor/htm.mjs';

export const html = htm.bind(h);
export { render };
