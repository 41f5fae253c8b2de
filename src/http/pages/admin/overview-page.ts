// /admin (CONTRACT 7): the last 30 days at a glance, from the operator API's own analytics overview, with
// daily revenue drawn as a chart and given again as a table.
import type { Figures } from '../../../school/analytics.repository.js';
import { html, type Raw } from '../html.js';
import { formatChange, formatCount, formatMoney } from './format.js';
import { svgBarChart } from './svg-bar-chart.js';

type OverviewFigures = Figures;

export interface OverviewInput {
  from: string;
  to: string;
  timeZone: string;
  currency: string;
  current: OverviewFigures;
  changePercent: Record<string, number | null>;
  dailyRevenue: Array<{ start: string; value: number }>;
  mcpConnections: boolean;
}

export function overviewBody(input: OverviewInput): Raw {
  const money = (cents: number) => formatMoney(cents, input.currency);
  const figures: Array<[string, keyof OverviewFigures, (n: number) => string]> = [
    ['Revenue', 'revenueCents', money],
    ['Refunds', 'refundsCents', money],
    ['Orders', 'orders', formatCount],
    ['New enrollments', 'newEnrollments', formatCount],
    ['Completions', 'completions', formatCount],
    ['Active learners', 'activeLearners', formatCount],
  ];
  const cards = figures.map(
    ([label, key, format]) =>
      html`<div class="figure"><div>${label}</div><div class="value">${format(input.current[key])}</div><div class="muted">${formatChange(input.changePercent[key])}</div></div>`,
  );
  const points = input.dailyRevenue.map((p) => ({ label: p.start, value: p.value }));
  const rows = input.dailyRevenue.map((p) => html`<tr><th scope="row">${p.start}</th><td class="num">${money(p.value)}</td></tr>`);
  return html`<p>The last 30 days, ${input.from} to ${input.to} (${input.timeZone}), against the 30 days before.</p>
<section aria-labelledby="figures-heading"><h2 id="figures-heading">Figures</h2><div class="figures">${cards}</div></section>
<section aria-labelledby="chart-heading"><h2 id="chart-heading">Revenue per day</h2>
${svgBarChart('revenue', `Revenue per day, ${input.from} to ${input.to}`, points, money)}
<details><summary>Revenue per day as a table</summary><div class="scroll"><table><caption>Revenue per day</caption><thead><tr><th scope="col">Day</th><th scope="col" class="num">Revenue</th></tr></thead><tbody>${rows}</tbody></table></div></details>
</section>
<section aria-labelledby="more-heading"><h2 id="more-heading">Manage</h2>
<ul>
<li><a href="/admin/connections">Connected apps</a>: every app holding tokens here, with revoke</li>
${input.mcpConnections ? html`<li><a href="/admin/developers/oauth-applications">OAuth applications</a>: member applications of this school</li>` : html``}
<li><a href="/admin/settings/beta">Beta features</a>: MCP connections is ${input.mcpConnections ? 'on' : 'off'}</li>
<li><a href="/admin/audit">Audit log</a>: sign-ins, consents, revocations and admin changes</li>
</ul></section>`;
}
