// /account/apps (CONTRACT 7): the apps a member allowed at this school, what each may do, when it last
// acted, and what it read or changed, grouped by day so the page stays short; "Revoke" per app.
import { SCOPE_DESCRIPTIONS } from '../../../oauth/scopes.js';
import { formatCount, formatTime } from '../admin/format.js';
import { html, type Raw, raw } from '../html.js';

export interface AccessGroup {
  day: string;
  items: Array<{ label: string; write: boolean; requests: number }>;
}

export interface MemberAppView {
  clientId: string;
  name: string;
  scopes: string[];
  allowedAt: number;
  lastUse: number | null;
  log: AccessGroup[];
}

export function accountAppsBody(apps: MemberAppView[], csrf: string, retentionDays: number, notice?: string): Raw {
  const cards = apps.map((app, i) => {
    const log =
      app.log.length === 0
        ? html`<p class="muted">No recorded use in the last ${retentionDays} days.</p>`
        : html`<details><summary>What it read or changed</summary><ul>${app.log.map(
            (g) =>
              html`<li><strong>${g.day}</strong>: ${g.items.map(
                (it, j) => html`${j > 0 ? ', ' : ''}${it.write ? 'changed ' : 'read '}${it.label} (${formatCount(it.requests)}×)`,
              )}</li>`,
          )}</ul></details>`;
    return html`<section aria-labelledby="app-${i}"><h2 id="app-${i}">${app.name}</h2>
<dl class="meta"><dt>Allowed</dt><dd>${formatTime(app.allowedAt)}</dd><dt>Last use</dt><dd>${formatTime(app.lastUse)}</dd>
<dt>It may</dt><dd><ul class="scopes">${app.scopes.map((s) => html`<li>${SCOPE_DESCRIPTIONS[s] ?? s}</li>`)}</ul></dd></dl>
${log}
<form method="post" action="/account/apps/revoke"><input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="client_id" value="${app.clientId}"><button type="submit" class="secondary" aria-label="Revoke ${app.name}">Revoke</button></form>
</section>`;
  });
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : raw('')}
<p>These apps can use your account at this school because you allowed them. Revoke one and it loses access at once; it would have to ask you again.</p>
${apps.length === 0 ? html`<p>You have not allowed any apps here.</p>` : raw('')}
${cards}
<p class="muted">What apps did is kept for ${retentionDays} days.</p>`;
}
