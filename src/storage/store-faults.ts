// Tells a store that cannot answer (connection refused or cut, a timeout, a server shutting down, a SQLite
// file locked past busy_timeout or a failing disk) from a bug. The first is a fault of the moment: every
// endpoint answers it with a 503 in its own shape and a Retry-After, never a 500 (issue 8, "Faults").

/** Seconds a client is told to wait before retrying after the store failed to answer. */
export const STORE_RETRY_AFTER_SECONDS = 2;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** PostgreSQL SQLSTATEs of a server that is going away or full (class 08 is checked by prefix). */
const POSTGRES_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53000', '58000', '58030']);

/** pg and pg-pool report lost connections and timeouts as plain Errors; these are their messages. */
const PG_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Connection refused',
];

function faultOf(error: { code?: unknown; message?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (NETWORK_CODES.has(code) || POSTGRES_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  // better-sqlite3: SQLITE_BUSY and its extended codes, I/O errors, a full disk, a file that cannot be opened.
  if (/^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN)/.test(code)) return true;
  const message = typeof error.message === 'string' ? error.message : '';
  return PG_MESSAGES.some((m) => message.startsWith(m));
}

/** True when `error` (or an error it wraps) says the store could not answer, rather than that our code failed. */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (faultOf(e as { code?: unknown; message?: unknown })) return true;
    // AggregateError (a connect that tried IPv4 and IPv6) and `cause` chains.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((x) => x && typeof x === 'object' && faultOf(x))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
