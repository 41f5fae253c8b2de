// Resolution of Client ID Metadata Document clients: host policy, caching, single flight (SPEC 4.2; draft section 4).
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../kernel/clock.js';
import { looksLikeCimdClientId, parseCimdClientIdUrl, quoteForMessage } from './client-id-url.js';
import { parseCimdDocument } from './document.js';
import { safeFetch } from './safe-fetch.js';
import { type CimdDocument, CimdError } from './types.js';
import { setBounded } from '../../kernel/bounded-map.js';

export interface CimdPolicy {
  allowlist: string[]; // hosts (exact hostname match, lowercase) whose documents are resolved
  openRegistration: boolean; // resolve documents from any host that passes the network rules
  reviewedHosts: string[]; // hosts whose clients are reviewed (CimdDocument.reviewed = true)
  allowLoopback: boolean; // TEST-ONLY switch: permits connecting to loopback addresses (127.0.0.0/8, ::1)
  timeoutMs: number; // default 5000
  maxBytes: number; // default 5120
}

export interface CimdResolver {
  /** True when this client_id has the form of a CIMD URL (starts with https://), i.e. should be resolved here. */
  isCimdClientId(clientId: string): boolean;
  /** Resolves and validates; throws CimdError (never anything else) on every failure. */
  resolve(clientId: string): Promise<CimdDocument>;
}

export const DEFAULT_CIMD_TIMEOUT_MS = 5000;
/** Near oidc-provider (5120) and Keycloak (5000): real documents are well under 2 KB. */
export const DEFAULT_CIMD_MAX_BYTES = 5120;

const SECOND = 1000;
// Even `no-store` is kept this long: without a floor, a popular client (or an attacker pointing many
// authorization requests at one URL) would make us fetch the document on every request.
const MIN_CACHE_MS = 30 * SECOND;
// A document that changed (new redirect URI, revoked client) must be seen within a day whatever it says.
const MAX_CACHE_MS = 24 * 60 * 60 * SECOND;
const DEFAULT_CACHE_MS = 5 * 60 * SECOND;
// With open registration anyone can publish documents under fresh URLs; the cache must not grow without bound.
const MAX_CACHE_ENTRIES = 1000;

/** How long a fetched document may be reused, from its caching headers, clamped to [30 s, 1 day]. */
export function cacheLifetimeMs(headers: IncomingHttpHeaders, now: number): number {
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, headerLifetimeMs(headers, now)));
}

function headerLifetimeMs(headers: IncomingHttpHeaders, now: number): number {
  const cacheControl = headers['cache-control'];
  if (cacheControl !== undefined) {
    const directives = cacheControl
      .toLowerCase()
      .split(',')
      .map((part) => part.trim());
    if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
    const maxAge = directives.find((directive) => directive.startsWith('max-age='));
    if (maxAge !== undefined) {
      const seconds = Number(maxAge.slice('max-age='.length).replace(/^"|"$/g, ''));
      // A malformed max-age is treated as stale (RFC 9111 4.2.1), which the floor turns into 30 s.
      return Number.isFinite(seconds) && seconds >= 0 ? seconds * SECOND : 0;
    }
  }
  const expires = headers['expires'];
  if (expires !== undefined) {
    const expiresAt = Date.parse(expires);
    if (Number.isNaN(expiresAt)) return 0;
    // Measured against the server's own Date when present, so a skewed local clock does not matter.
    const date = headers['date'] === undefined ? Number.NaN : Date.parse(headers['date']);
    return expiresAt - (Number.isNaN(date) ? now : date);
  }
  return DEFAULT_CACHE_MS;
}

interface CacheEntry {
  document: CimdDocument;
  expiresAt: number;
}

export function createCimdResolver(policy: CimdPolicy, clock: Clock): CimdResolver {
  if (!(policy.timeoutMs > 0) || !(policy.maxBytes > 0)) throw new RangeError('CIMD timeoutMs and maxBytes must be positive');
  const allowlist = new Set(policy.allowlist.map((host) => host.toLowerCase()));
  const reviewedHosts = new Set(policy.reviewedHosts.map((host) => host.toLowerCase()));
  const cache = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<CimdDocument>>();

  function remember(clientId: string, entry: CacheEntry): void {
    // Full: expired documents go first; only if none had expired does the oldest one go.
    if (cache.size >= MAX_CACHE_ENTRIES) {
      const now = clock.now();
      for (const [key, value] of cache) if (value.expiresAt <= now) cache.delete(key);
    }
    setBounded(cache, clientId, entry, MAX_CACHE_ENTRIES);
  }

  async function fetchAndValidate(clientId: string, url: URL, host: string): Promise<CimdDocument> {
    const response = await safeFetch(url, { allowLoopback: policy.allowLoopback, timeoutMs: policy.timeoutMs, maxBytes: policy.maxBytes });
    const parsed = parseCimdDocument(response.body, { clientId, host });
    const document: CimdDocument = { ...parsed, reviewed: reviewedHosts.has(host) };
    const now = clock.now();
    remember(clientId, { document, expiresAt: now + cacheLifetimeMs(response.headers, now) });
    return document;
  }

  async function resolveUnsafe(clientId: string): Promise<CimdDocument> {
    const { url, host } = parseCimdClientIdUrl(clientId);
    if (!policy.openRegistration && !allowlist.has(host)) {
      throw new CimdError(
        'host_not_allowed',
        `The host ${quoteForMessage(host)} is not allowed to publish client metadata documents here. ` +
          'Use a pre-registered vendor platform or contact support.',
      );
    }

    const cached = cache.get(clientId);
    if (cached !== undefined) {
      if (cached.expiresAt > clock.now()) return cached.document;
      cache.delete(clientId);
    }

    const pending = inFlight.get(clientId);
    if (pending !== undefined) return pending;
    const started = fetchAndValidate(clientId, url, host).finally(() => inFlight.delete(clientId));
    inFlight.set(clientId, started);
    return started;
  }

  return {
    isCimdClientId: looksLikeCimdClientId,
    async resolve(clientId) {
      try {
        return await resolveUnsafe(clientId);
      } catch (error) {
        if (error instanceof CimdError) throw error;
        throw new CimdError('fetch_failed', 'The client metadata document could not be fetched.');
      }
    },
  };
}
