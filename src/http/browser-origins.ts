// Which web pages may call /mcp from a browser (MCP "Streamable HTTP", security warning: validate Origin
// and answer 403 when it is present and not allowed). The rule guards against DNS rebinding, where a page
// of the attacker's host reaches a server on the victim's network; here every site is chosen by its Host
// against configured origins, so a rebound host is already 404, and /mcp acts on bearer tokens only, never
// cookies, so a page of another origin gains nothing it did not bring. Browser-based MCP clients (issue 8)
// must therefore be let in: by default any https page and any page on loopback (a developer's client);
// `mcp.allowed_origins` in the platform config narrows this to a list. `null` (sandboxed frames, files)
// and malformed origins are refused.
import type { Site } from '../sites/site.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function browserOriginAllowed(origin: string, site: Site, configured: readonly string[] | undefined): boolean {
  if (origin === site.origin) return true;
  if (configured) return configured.includes(origin);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An Origin header is exactly scheme://host[:port]; anything else is not one a browser sends.
  if (url.origin !== origin) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}
