// A bar chart drawn on the server as SVG (issue 11): no script, no colour needed to read it (bars are
// dark on light with labelled axes), and a text alternative: the SVG's title and description for screen
// readers, and the same numbers in a table beside it.
import { html, type Raw } from '../html.js';

export interface BarPoint {
  label: string;
  value: number;
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 64;
const BOTTOM = 28;
const TOP = 12;

/** `format` writes a value for the axis and the description (money, counts). */
export function svgBarChart(id: string, title: string, points: readonly BarPoint[], format: (value: number) => string): Raw {
  const max = Math.max(0, ...points.map((p) => p.value));
  const top = max === 0 ? 1 : max;
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = points.length > 0 ? plotWidth / points.length : plotWidth;
  const barWidth = Math.max(1, step * 0.7);
  const bars = points.map((p, i) => {
    const h = Math.round((p.value / top) * plotHeight * 10) / 10;
    const x = Math.round((LEFT + i * step + (step - barWidth) / 2) * 10) / 10;
    const y = Math.round((TOP + plotHeight - h) * 10) / 10;
    return html`<rect x="${x}" y="${y}" width="${Math.round(barWidth * 10) / 10}" height="${h}" fill="#24292f"><title>${p.label}: ${format(p.value)}</title></rect>`;
  });
  const first = points[0];
  const last = points.at(-1);
  const busiest = points.reduce<BarPoint | undefined>((best, p) => (best === undefined || p.value > best.value ? p : best), undefined);
  const total = points.reduce((sum, p) => sum + p.value, 0);
  const description =
    first && last
      ? `${points.length} days from ${first.label} to ${last.label}; total ${format(total)}; highest ${busiest ? `${format(busiest.value)} on ${busiest.label}` : 'none'}.`
      : 'No data.';
  const baseline = TOP + plotHeight;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${title}</title>
<desc id="${id}-desc">${description}</desc>
<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${baseline}" stroke="#57606a"/>
<line x1="${LEFT}" y1="${baseline}" x2="${WIDTH - 8}" y2="${baseline}" stroke="#57606a"/>
<text x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end" font-size="12" fill="#1b1f24">${format(max)}</text>
<text x="${LEFT - 6}" y="${baseline}" text-anchor="end" font-size="12" fill="#1b1f24">0</text>
${first ? html`<text x="${LEFT}" y="${HEIGHT - 8}" font-size="12" fill="#1b1f24">${first.label}</text>` : html``}
${last ? html`<text x="${WIDTH - 8}" y="${HEIGHT - 8}" text-anchor="end" font-size="12" fill="#1b1f24">${last.label}</text>` : html``}
${bars}
</svg>`;
}
