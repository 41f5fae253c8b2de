// /admin/audit (CONTRACT 7): the audit log, newest first, filtered by actor, app and action, a page at a time.
import type { AuditRecord } from '../../../audit/audit-log.js';
import { html, type Raw, raw } from '../html.js';
import { formatTime } from './format.js';

export interface AuditFilterInput {
  actor: string;
  app: string;
  action: string;
}

function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join('; ');
}

export function auditBody(
  records: AuditRecord[],
  people: Map<string, string>,
  filter: AuditFilterInput,
  next: string | null,
  tokenEventRetentionDays: number,
  error?: string,
): Raw {
  const params = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({ actor: filter.actor, app: filter.app, action: filter.action, ...extra }).filter(([, v]) => v !== ''),
    ).toString();
  const rows = records.map(
    (r) =>
      html`<tr><td>${formatTime(r.at)}</td><th scope="row"><code>${r.kind}</code></th><td>${r.personId ? (people.get(r.personId) ?? r.personId) : '—'}</td><td>${r.clientId ? html`<code>${r.clientId}</code>` : '—'}</td><td>${r.target ?? ''} ${detailText(r.detail)}</td></tr>`,
  );
  return html`<form method="get" action="/admin/audit" aria-label="Filter the audit log">
<label for="f-actor">Actor (email)</label><input id="f-actor" name="actor" type="text" value="${filter.actor}">
<label for="f-app">App (client ID)</label><input id="f-app" name="app" type="text" value="${filter.app}">
<label for="f-action">Action (for example <code>consent.granted</code>, or a prefix such as <code>operator.</code>)</label><input id="f-action" name="action" type="text" value="${filter.action}">
<div class="actions"><button type="submit">Filter</button></div>
</form>
${error ? html`<p class="error" role="alert">${error}</p>` : raw('')}
${
  records.length === 0
    ? html`<p>No audit events match.</p>`
    : html`<div class="scroll"><table><caption>Audit events, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">App</th><th scope="col">Details</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<div class="pager">${next ? html`<a href="/admin/audit?${params({ after: next })}">Older events</a>` : raw('')}${filter.actor || filter.app || filter.action ? html`<a href="/admin/audit">Clear filters</a>` : raw('')}</div>
<p class="muted">Tokens issued and refreshed (<code>token.issued</code>, <code>token.refreshed</code>) are kept for ${tokenEventRetentionDays} days; every other event is kept for good.</p>`;
}
