// /admin/settings/beta (CONTRACT 7): the "MCP connections" beta feature.
import { html, type Raw, raw } from '../html.js';

export function betaBody(on: boolean, csrfToken: string, saved: boolean): Raw {
  return html`${saved ? html`<p class="notice" role="status">Saved. MCP connections ${on ? 'are on' : 'are off'}.</p>` : raw('')}
<form method="post" action="/admin/settings/beta">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<label class="check"><input type="checkbox" id="mcp-connections" name="mcp_connections" value="on"${raw(on ? ' checked' : '')} aria-describedby="mcp-help"> MCP connections</label>
<p class="muted" id="mcp-help">Lets you create member OAuth applications (Developers) that act for one signed-in member, for AI assistants and apps. Turning it off hides the Developers page, refuses new authorizations of member applications and stops their tokens working; turning it on again restores them. Nothing is deleted.</p>
<div class="actions"><button type="submit">Save</button></div>
</form>`;
}
