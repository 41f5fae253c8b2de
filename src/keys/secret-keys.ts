// The keys derived from SCHOOLGATE_SECRET, one set per purpose (HKDF info `schoolgate:<purpose>`, so one
// secret never keys two kinds of data). While the secret changes (SCHOOLGATE_PREVIOUS_SECRET, see
// `schoolgate secret reseal`), the previous secret's key follows the current one: it still verifies and
// opens what it made, and only the current one makes anything new.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { deriveKey } from '../kernel/sealing.js';

export type SecretPurpose = 'signing-keys' | 'csrf' | 'mcp-confirmation' | 'admin-flash' | 'refresh-successors';

/** The current secret's key for `purpose` first, then the previous secret's, if there is one. */
export function secretKeys(config: { secret: string; previousSecret?: string | undefined }, purpose: SecretPurpose): [Buffer, ...Buffer[]] {
  const keys: [Buffer, ...Buffer[]] = [deriveKey(config.secret, purpose)];
  if (config.previousSecret !== undefined) keys.push(deriveKey(config.previousSecret, purpose));
  return keys;
}

/**
 * The same keys as KeyObjects, for a key that HMACs on a hot path (the refresh successors): createHmac given a
 * KeyObject skips importing the key bytes on every call (3.8 against 5.4 µs an HMAC-SHA512 here).
 */
export function secretKeyObjects(
  config: { secret: string; previousSecret?: string | undefined },
  purpose: SecretPurpose,
): [KeyObject, ...KeyObject[]] {
  const [current, ...previous] = secretKeys(config, purpose);
  return [createSecretKey(current), ...previous.map((key) => createSecretKey(key))];
}
