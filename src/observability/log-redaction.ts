// Access logs must never hold a token, code, secret or password (issue 8). Headers that carry them are not
// logged at all, and query parameters that may carry one are replaced in the logged URL.
const SECRET_PARAMETERS = new Set([
  'code',
  'access_token',
  'refresh_token',
  'id_token',
  'id_token_hint',
  'token',
  'client_secret',
  'password',
  'code_verifier',
  'assertion',
  'client_assertion',
  'login_hint',
]);

export const REDACTED = 'REDACTED';

/** The URL with secret-bearing query parameters replaced; a URL that does not parse is cut at its query. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(q + 1));
  } catch {
    return `${url.slice(0, q)}?${REDACTED}`;
  }
  let changed = false;
  for (const name of [...new Set(params.keys())]) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** pino serializers for Fastify's request and response log lines: no headers, redacted URLs. */
export const logSerializers = {
  req(request: LoggedRequest) {
    return { method: request.method, url: redactUrl(request.url), host: request.hostname, remoteAddress: request.ip };
  },
};
