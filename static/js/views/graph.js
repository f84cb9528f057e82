// The session graph: each player's net over the session's hands (solid) and the all-in
// adjusted net (dashed), drawn as SVG in the browser (no library). The drawing stretches to
// the width it is given, so its numbers are HTML beside it, readable on a phone.
import { html } from '../html.js';

const COLORS = ['#f2c14e', '#5cc8ff', '#ff8f92', '#3dbb73', '#b28dff', '#ff9f43', '#e0e0e0', '#4dd0c8', '#d66bd0', '#a3d65c'];
const W = 600;
const H = 240;
const PAD = 8;

function path(points, x, y, key) {
  return points.map((p, i) => `${i ? 'L' : 'M'}${x(p.hand).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
}

export function graphView(graph) {
  if (!graph) return html`<p class="hint">Loading the graph…</p>`;
  if (graph.error) return html`<p class="hint" role="alert">${graph.error}</p>`;
  const lines = graph.players.filter((p) => p.points.length);
  if (!lines.length) return html`<p class="hint">No hand yet.</p>`;
  const points = lines.flatMap((l) => l.points);
  const hands = points.map((p) => p.hand);
  const values = points.flatMap((p) => [p.net, p.adjusted]);
  const x0 = Math.min(...hands);
  const x1 = Math.max(...hands, x0 + 1);
  const y0 = Math.min(0, ...values);
  const y1 = Math.max(0, ...values, y0 + 1);
  const x = (v) => PAD + ((v - x0) / (x1 - x0)) * (W - 2 * PAD);
  const y = (v) => H - PAD - ((v - y0) / (y1 - y0)) * (H - 2 * PAD);
  return html`<figure class="session-graph" data-graph="1">
    <div class="graph-box">
      <span class="axis y-top">${Math.round(y1)}</span>
      <span class="axis y-bottom">${Math.round(y0)}</span>
      <svg viewBox=${`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img"
        aria-label=${`Net over hands ${x0} to ${x1}: ${lines.map((l) => `${l.name} ${l.points[l.points.length - 1].net}`).join(', ')}`}>
        <line class="zero" x1="0" x2=${W} y1=${y(0)} y2=${y(0)}></line>
        ${lines.map((l, i) => html`<g data-graph-player=${l.player_id} style=${{ '--c': COLORS[i % COLORS.length] }}>
          <path class="adjusted" d=${path(l.points, x, y, 'adjusted')}></path>
          <path class="net" d=${path(l.points, x, y, 'net')}></path>
        </g>`)}
      </svg>
      <span class="axis x-left">hand ${x0}</span>
      <span class="axis x-right">hand ${x1}</span>
    </div>
    <figcaption>
      <ul class="legend">${lines.map((l, i) => {
        const last = l.points[l.points.length - 1];
        return html`<li style=${{ '--c': COLORS[i % COLORS.length] }}><span class="swatch"></span>
          <b>${l.name}</b> <span class=${last.net > 0 ? 'up' : last.net < 0 ? 'down' : ''}>${last.net > 0 ? '+' : ''}${last.net}</span>
          <span class="adj">(all-in adj. ${last.adjusted > 0 ? '+' : ''}${last.adjusted})</span></li>`;
      })}</ul>
      <span class="hint">Solid: net. Dashed: net with each all-in won in expectation.</span>
    </figcaption>
  </figure>`;
}
