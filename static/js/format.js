// Names for what the server sends (display only: no rules here).

export const GAMES = {
  'omaha': { name: 'Pot-limit Omaha', short: 'Omaha', hole: 4 },
  'omaha-hi-lo': { name: 'Omaha hi-lo', short: 'Omaha hi-lo', hole: 4 },
  'five-card-omaha': { name: 'Five-card Omaha', short: '5-card Omaha', hole: 5 },
  'big-o': { name: 'Big O (5-card hi-lo)', short: 'Big O', hole: 5 },
  'six-card-omaha': { name: 'Six-card Omaha', short: '6-card Omaha', hole: 6 },
  'six-card-omaha-hi-lo': { name: 'Six-card Omaha hi-lo', short: '6-card hi-lo', hole: 6 },
  'courchevel': { name: 'Courchevel', short: 'Courchevel', hole: 5 },
  'courchevel-hi-lo': { name: 'Courchevel hi-lo', short: 'Courchevel hi-lo', hole: 5 },
};

export const BETTING = { 'pot-limit': 'Pot limit', 'no-limit': 'No limit', 'fixed-limit': 'Fixed limit' };
export const BETTING_SHORT = { 'pot-limit': 'PL', 'no-limit': 'NL', 'fixed-limit': 'FL' };

export function gameLabel(config) {
  const g = GAMES[config.game];
  const game = g ? g.short : config.game;
  const board = config.boards > 1 ? ' · double board' : '';
  return `${BETTING_SHORT[config.betting] || ''} ${game}${board}`.trim();
}

export function stakes(config) {
  let s = `${config.small_blind}/${config.big_blind}`;
  if (config.ante) s += ` ante ${config.ante}`;
  return s;
}

export function holeCount(config) {
  const g = GAMES[config.game];
  return g ? g.hole : 4;
}

// Short marks on a seat; the long ones (STATUS) in the viewer's own panel.
export const MARKS = {
  waiting: 'Waits for BB',
  posting: 'Posts BB',
  sitting_out: 'Sitting out',
  leaving: 'Leaving',
};

export const STATUS = {
  waiting: 'Waiting for the big blind',
  posting: 'Posts to come in',
  sitting_out: 'Sitting out',
  leaving: 'Leaving',
};
