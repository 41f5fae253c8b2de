// Random identifiers and secrets. Tokens carry 256 bits of entropy (RFC 6749 10.10, RFC 9700 4.x).
//
// Each call of crypto.randomBytes for a few bytes costs a trip into OpenSSL (about 5 µs here, more under
// load; a refresh rotation needs three). Like Node's own randomUUID, small requests are served from a pool
// filled by the same CSPRNG 4 KiB at a time. Every byte is handed out once and zeroed as it is taken, so
// the pool never holds a secret that has been issued. The pool is its own allocation, not a slice of
// Node's shared buffer slab.
import { randomBytes, randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `bytes` fresh random bytes, read by `read` and then zeroed in the pool; requests larger than an eighth of
 * the pool go to the CSPRNG directly.
 */
function fresh<T>(bytes: number, read: (source: Buffer, start: number, end: number) => T): T {
  if (bytes > POOL_BYTES / 8) return read(randomBytes(bytes), 0, bytes);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += bytes;
  const value = read(pool, start, offset);
  pool.fill(0, start, offset);
  return value;
}

/** `bytes` fresh random bytes, in memory of their own. */
export function randomBuffer(bytes: number): Buffer {
  return fresh(bytes, (source, start, end) => Buffer.from(source.subarray(start, end)));
}

function randomText(bytes: number): string {
  return fresh(bytes, (source, start, end) => source.toString('base64url', start, end));
}

/** 32 random bytes, base64url: the body of every token, code and session id. */
export function randomSecret(bytes = 32): string {
  return randomText(bytes);
}

/** A short, readable, unique id for rows (`site_…`, `per_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomText(12)}`;
}
