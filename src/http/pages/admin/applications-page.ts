// /admin/developers/oauth-applications (CONTRACT 7, SPEC 5.2): the school's member OAuth applications,
// the form that creates one, and the one-time view of a new or rotated secret.
import type { MemberClientsTable } from '../../../storage/schema.js';
import { html, type Raw, raw } from '../html.js';
import { formatTime } from './format.js';

export interface ApplicationsInput {
  apps: MemberClientsTable[];
  scopes: readonly string[];
  csrfToken: string;
  /** A secret to show this once, with the application it belongs to. */
  revealed?: { clientId: string; name: string; secret: string | null; created: boolean };
  notice?: string;
  error?: string;
  /** What the person typed, shown again with an error. */
  form?: { name: string; redirectUris: string; kind: string; scopes: string[] };
}

export const APPLICATIONS_PATH = '/admin/developers/oauth-applications';

function revealedBox(r: NonNullable<ApplicationsInput['revealed']>): Raw {
  return html`<div class="secret" role="status">
<p><strong>${r.created ? `Created ${r.name}.` : `New secret for ${r.name}.`}</strong> Give the developer the client ID${r.secret ? ' and the secret' : ''}.</p>
<dl class="meta"><dt>Client ID</dt><dd><code id="created-client-id">${r.clientId}</code></dd>
${r.secret ? html`<dt>Client secret</dt><dd><code id="client-secret">${r.secret}</code></dd>` : raw('')}</dl>
${r.secret ? html`<p>Copy the secret now: it is shown this once. Only a hash of it is kept, so it cannot be shown again; if it is lost, rotate it.</p>` : html`<p>This is a public application: it has no secret and uses PKCE.</p>`}
</div>`;
}

function appRow(app: MemberClientsTable, csrfToken: string): Raw {
  const uris = JSON.parse(app.redirect_uris) as string[];
  const base = `${APPLICATIONS_PATH}/${encodeURIComponent(app.client_id)}`;
  return html`<tr>
<th scope="row">${app.name}</th>
<td><code>${app.client_id}</code></td>
<td>${app.kind === 'confidential' ? 'Confidential (client_secret_post)' : 'Public (PKCE)'}</td>
<td>${app.scopes}</td>
<td>${uris.map((u) => html`<div><code>${u}</code></div>`)}<a href="${base}/redirect-uris">Edit redirect URIs<span class="muted"> of ${app.name}</span></a></td>
<td>${formatTime(app.created_at)}</td>
<td>
${app.kind === 'confidential' ? html`<form method="post" action="${base}/rotate-secret" class="inline"><input type="hidden" name="csrf_token" value="${csrfToken}"><button type="submit" class="secondary" aria-label="Rotate secret of ${app.name}">Rotate secret</button></form>` : raw('')}
<form method="post" action="${base}/delete" class="inline"><input type="hidden" name="csrf_token" value="${csrfToken}"><button type="submit" class="secondary" aria-label="Delete ${app.name}">Delete</button></form>
</td>
</tr>`;
}

export function applicationsBody(input: ApplicationsInput): Raw {
  const form = input.form ?? { name: '', redirectUris: '', kind: 'public', scopes: ['openid', 'profile', 'account:read'] };
  const scopeBoxes = input.scopes.map(
    (s) =>
      html`<label class="check"><input type="checkbox" name="scope" value="${s}"${raw(form.scopes.includes(s) ? ' checked' : '')}> <code>${s}</code></label>`,
  );
  const table =
    input.apps.length === 0
      ? html`<p>No member applications yet.</p>`
      : html`<div class="scroll"><table><caption>Member OAuth applications</caption><thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Client type</th><th scope="col">Scopes</th><th scope="col">Redirect URIs</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>${input.apps.map((a) => appRow(a, input.csrfToken))}</tbody></table></div>`;
  return html`<p>Member applications act for one signed-in member of this school (students included), with the scopes you choose here. Connected apps and their usage are on <a href="/admin/connections">Connected apps</a>.</p>
${input.revealed ? revealedBox(input.revealed) : raw('')}
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : raw('')}
${table}
<h2 id="create-heading">Create an application</h2>
${input.error ? html`<p class="error" role="alert" id="create-error">${input.error}</p>` : raw('')}
<form method="post" action="${APPLICATIONS_PATH}" aria-labelledby="create-heading"${raw(input.error ? ' aria-describedby="create-error"' : '')}>
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
<label for="app-name">Name</label>
<input id="app-name" name="name" type="text" required maxlength="100" value="${form.name}">
<label for="app-redirect-uris">Redirect URIs</label>
<textarea id="app-redirect-uris" name="redirect_uris" required aria-describedby="redirect-help">${form.redirectUris}</textarea>
<p class="muted" id="redirect-help">One per line: https, http on 127.0.0.1, [::1] or localhost (any port matches), or a reverse-domain scheme such as com.example.app:/callback.</p>
<label for="app-kind">Client type</label>
<select id="app-kind" name="kind">
<option value="public"${raw(form.kind === 'public' ? ' selected' : '')}>Public (native or browser app, PKCE, no secret)</option>
<option value="confidential"${raw(form.kind === 'confidential' ? ' selected' : '')}>Confidential (server-side app with a secret)</option>
</select>
<fieldset><legend>Scopes</legend>${scopeBoxes}</fieldset>
<div class="actions"><button type="submit">Create application</button></div>
</form>`;
}

export function redirectUrisBody(app: MemberClientsTable, csrfToken: string, value: string, error?: string): Raw {
  const base = `${APPLICATIONS_PATH}/${encodeURIComponent(app.client_id)}`;
  return html`<p>Redirect URIs of <strong>${app.name}</strong> (<code>${app.client_id}</code>).</p>
${error ? html`<p class="error" role="alert" id="uris-error">${error}</p>` : raw('')}
<form method="post" action="${base}/redirect-uris">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<label for="app-redirect-uris">Redirect URIs</label>
<textarea id="app-redirect-uris" name="redirect_uris" required${raw(error ? ' aria-describedby="uris-error"' : '')}>${value}</textarea>
<div class="actions"><button type="submit">Save redirect URIs</button></div>
</form>
<p><a href="${APPLICATIONS_PATH}">Back to OAuth applications</a></p>`;
}
