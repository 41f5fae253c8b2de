// CONTRACT 4: the consent page: the client's name, the scopes in plain words, Allow and Deny.
import { SCOPE_DESCRIPTIONS } from '../../oauth/scopes.js';
import { html, raw } from './html.js';
import { layout } from './layout.js';
import type { PageTheme } from './theme.js';

export interface ConsentPageInput {
  siteName: string;
  clientName: string;
  /** For Client ID Metadata Document clients: the host that published the document. */
  documentHost: string | null;
  personName: string;
  scopes: string[];
  csrfToken: string;
  /** The authorization request's query string, re-validated when the form comes back. */
  request: string;
  theme?: PageTheme;
}

export function consentPage(input: ConsentPageInput): string {
  const items = input.scopes.map((s) => html`<li>${SCOPE_DESCRIPTIONS[s] ?? s} <span class="muted">(<code>${s}</code>)</span></li>`);
  const origin = input.documentHost
    ? html`<p class="muted">This application identifies itself with a document published by <strong>${input.documentHost}</strong>. Allow it only if you trust that site.</p>`
    : raw('');
  return layout(
    'Allow access?',
    input.siteName,
    html`<p><strong>${input.clientName}</strong> wants to use your account at ${input.siteName}.</p>
${origin}<p>It will be able to:</p>
<ul class="scopes">${items}</ul>
<p class="muted">Signed in as ${input.personName}.</p>
<form method="post" action="/oauth/authorize/decision">
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
<input type="hidden" name="request" value="${input.request}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
    input.theme,
  );
}
