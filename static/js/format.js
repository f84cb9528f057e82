// What the pages draw with, over the server's words (words.js, made by the server from
// app/tables/labels.py) and the labels its snapshot and records carry: no wording here.
import { WORDS } from './words.js';

// The games and betting structures a new table offers, by key: their names.
// Each game by key: `name`, `short` (where room is short), `hole_cards`.
export const GAMES = WORDS.games;
export const GAME_NAMES = Object.fromEntries(Object.entries(WORDS.games).map(([k, g]) => [k, g.name]));
export const BETTING = WORDS.betting;

export function holeCount(config) {
  const g = WORDS.games[config.game];
  return g ? g.hole_cards : 4;
}

// A seat's marks: its own (`mark`, or `mark_in_hand` while it plays the running hand), then
// all in. The first paint (app/api/first_paint.py) draws the same.
export function seatMarks(seat, inHand, allIn) {
  const marks = [];
  const own = inHand ? seat.mark_in_hand : seat.mark;
  if (own) marks.push(own);
  if (allIn) marks.push(WORDS.marks.all_in);
  return marks;
}
