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

/** The pool's next `bytes` unused bytes: [start, end). */
function take(bytes: number): [number, number] {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += bytes;
  return [start, offset];
}

/** `bytes` fresh random bytes. */
export function randomBuffer(bytes: number): Buffer {
  if (bytes > POOL_BYTES / 8) return randomBytes(bytes);
  const [start, end] = take(bytes);
  const copy = Buffer.from(pool.subarray(start, end));
  pool.fill(0, start, end);
  return copy;
}

/** `bytes` fresh random bytes as base64url. */
function randomText(bytes: number): string {
  if (bytes > POOL_BYTES / 8) return randomBytes(bytes).toString('base64url');
  const [start, end] = take(bytes);
  const text = pool.toString('base64url', start, end);
  pool.fill(0, start, end);
  return text;
}

/** 32 random bytes, base64url: the body of every token, code and session id. */
export function randomSecret(bytes = 32): string {
  return randomText(bytes);
}

/** A short, readable, unique id for rows (`site_…`, `per_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomText(12)}`;
}
