// /admin/connections (CONTRACT 7): every app holding tokens at this site, who allowed it, what it may do,
// how much it is used, and the controls: Revoke for all, Mark reviewed and Block for Client ID Metadata
// Document clients (the site's decision wins over the platform's reviewed_hosts).
import { html, type Raw, raw } from '../html.js';
import { formatCount, formatTime } from './format.js';

export type { AppKind } from '../../../clients/app-names.js';
import type { AppKind } from '../../../clients/app-names.js';

export interface ConnectionView {
  clientId: string;
  name: string;
  kind: AppKind;
  people: number;
  somePeople: string[];
  scopes: string[];
  lastUse: number | null;
  requests7d: number;
  /** For Client ID Metadata Document clients. */
  review?: { state: 'reviewed' | 'unreviewed' | 'blocked'; source: 'site' | 'platform' | 'default' };
}

export interface DecisionView {
  clientId: string;
  decision: 'reviewed' | 'blocked';
  decidedAt: number;
}

const KIND_LABEL: Record<AppKind, string> = {
  vendor: 'Vendor platform',
  cimd: 'Client ID Metadata Document',
  'member-app': 'Member application',
};

function reviewText(review: NonNullable<ConnectionView['review']>): string {
  const source = review.source === 'site' ? 'decided here' : review.source === 'platform' ? 'platform default' : 'not reviewed yet';
  if (review.state === 'unreviewed') return 'Unreviewed: read and identity scopes only';
  return `${review.state === 'reviewed' ? 'Reviewed: may ask for write scopes' : 'Blocked'} (${source})`;
}

function button(action: string, label: string, name: string, csrf: string, clientId: string, secondary = true): Raw {
  return html`<form method="post" action="${action}" class="inline"><input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="client_id" value="${clientId}"><button type="submit"${raw(secondary ? ' class="secondary"' : '')} aria-label="${label} ${name}">${label}</button></form>`;
}

function row(c: ConnectionView, csrf: string): Raw {
  const others = c.people - c.somePeople.length;
  const who = html`${c.somePeople.join(', ')}${others > 0 ? ` and ${formatCount(others)} more` : ''}`;
  const review = c.review ? html`<div>${reviewText(c.review)}</div>` : raw('');
  const reviewButtons = c.review
    ? html`${c.review.state !== 'reviewed' ? button('/admin/connections/review', 'Mark reviewed', c.name, csrf, c.clientId) : raw('')}${button('/admin/connections/block', 'Block', c.name, csrf, c.clientId)}`
    : raw('');
  return html`<tr>
<th scope="row">${c.name}<div class="muted"><span class="badge">${KIND_LABEL[c.kind]}</span> <code>${c.clientId}</code></div>${review}</th>
<td>${who}<div class="muted">${formatCount(c.people)} ${c.people === 1 ? 'person' : 'people'}</div></td>
<td>${c.scopes.join(' ')}</td>
<td>${formatTime(c.lastUse)}</td>
<td class="num">${formatCount(c.requests7d)}</td>
<td>${button('/admin/connections/revoke', 'Revoke', c.name, csrf, c.clientId)}${reviewButtons}</td>
</tr>`;
}

export function connectionsBody(connections: ConnectionView[], decisions: DecisionView[], csrf: string, notice?: string): Raw {
  const table =
    connections.length === 0
      ? html`<p>No app holds tokens at this school.</p>`
      : html`<div class="scroll"><table><caption>Apps holding tokens here</caption><thead><tr><th scope="col">App</th><th scope="col">Allowed by</th><th scope="col">Scopes</th><th scope="col">Last use</th><th scope="col" class="num">Requests, last 7 days</th><th scope="col">Actions</th></tr></thead><tbody>${connections.map((c) => row(c, csrf))}</tbody></table></div>`;
  const decided =
    decisions.length === 0
      ? raw('')
      : html`<h2>Decisions on Client ID Metadata Document clients</h2><div class="scroll"><table><caption>Reviewed and blocked clients</caption><thead><tr><th scope="col">Client</th><th scope="col">Decision</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead><tbody>${decisions.map(
          (d) =>
            html`<tr><th scope="row"><code>${d.clientId}</code></th><td>${d.decision === 'blocked' ? 'Blocked' : 'Reviewed'}</td><td>${formatTime(d.decidedAt)}</td><td>${button('/admin/connections/reset', 'Return to platform default', d.clientId, csrf, d.clientId)}</td></tr>`,
        )}</tbody></table></div>`;
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : raw('')}
<p>Revoke ends every token of an app at this school at once, on every server; people can allow it again later. Blocking a Client ID Metadata Document client also refuses it when it asks again.</p>
${table}${decided}`;
}
