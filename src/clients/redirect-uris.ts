// Redirect URI matching (RFC 6749 3.1.2, RFC 9700 2.1: exact string match), with the one exception of
// RFC 8252 7.3: a loopback redirect URI registered without a port matches on any port. One registered
// with a port (a web client on a fixed local port, CONTRACT 3 `academy-member-web`) is matched exactly.
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

function withoutPort(url: URL): string {
  const copy = new URL(url.href);
  copy.port = '';
  return copy.href;
}

/** True when `requested` is one of `registered`, exactly, or on any port of a portless registered loopback URI. */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let req: URL;
  try {
    req = new URL(requested);
  } catch {
    return false;
  }
  if (req.hash || !isLoopbackRedirect(requested)) return false;
  const requestedNoPort = withoutPort(req);
  return registered.some((r) => isLoopbackRedirect(r) && new URL(r).port === '' && withoutPort(new URL(r)) === requestedNoPort);
}
