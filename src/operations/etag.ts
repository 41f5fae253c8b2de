// Entity tags of the operator API's resources (RFC 9110 8.8.3, 13.1): a strong tag is a digest of the
// resource's representation, so any change to what a client would read changes it, with no version
// column to keep in step. `_note` (the user-content marker) is words about the data, not the data.
import { createHash } from 'node:crypto';
import { canonicalJson } from './idempotency.js';

export function etagOf(representation: Record<string, unknown>): string {
  const { _note, ...data } = representation;
  return `"${createHash('sha256').update(canonicalJson(data)).digest('base64url').slice(0, 27)}"`;
}

function tags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** If-Match (RFC 9110 13.1.1): `*` or a listed tag, compared strongly (a weak tag never matches). */
export function ifMatchHolds(header: string, current: string): boolean {
  return tags(header).some((t) => t === '*' || t === current);
}

/** If-None-Match (RFC 9110 13.1.2): true when the client's copy is current, compared weakly. */
export function ifNoneMatchHits(header: string, current: string): boolean {
  return tags(header).some((t) => t === '*' || t.replace(/^W\//, '') === current);
}
