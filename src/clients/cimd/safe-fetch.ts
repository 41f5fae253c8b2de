// SSRF-safe retrieval of a Client ID Metadata Document (draft section 6 "Security Considerations", SPEC 4.2).
import dns from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net, { type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { CimdError } from './types.js';

export interface SafeFetchOptions {
  /** Test-only: permits loopback addresses (127.0.0.0/8, ::1). */
  allowLoopback: boolean;
  /** Budget for connect, headers and body together. */
  timeoutMs: number;
  maxBytes: number;
}

export interface SafeFetchResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export type AddressClass = 'public' | 'loopback' | 'non-public';

/**
 * Classifies an IP address: `public` is global unicast, `loopback` is 127.0.0.0/8 or ::1 (also as
 * ::ffff:127.x), everything else (private, link-local, unique-local, multicast, reserved, unspecified,
 * tunnelling and translation prefixes, unparsable text) is `non-public`.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // net.isIP is strict where ipaddr.js also accepts legacy spellings such as `127.1`.
  if (net.isIP(bare) === 0) return 'non-public';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() unwraps IPv4-mapped IPv6 so ::ffff:10.0.0.1 is judged as 10.0.0.1.
    parsed = ipaddr.process(bare);
  } catch {
    return 'non-public';
  }
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return 'non-public';
  if (parsed.kind() === 'ipv6') {
    // ipaddr.js calls every unlisted IPv6 prefix unicast, including the deprecated IPv4-compatible ::/96
    // and unallocated space; only 2000::/3 is handed out as global unicast.
    const [first] = (parsed as ipaddr.IPv6).parts;
    if (first === undefined || (first & 0xe000) !== 0x2000) return 'non-public';
  }
  return 'public';
}

export function isPermittedAddress(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind === 'loopback' && allowLoopback);
}

/** A refusal whose message is meant for the client developer, as opposed to an internal error. */
class FetchRefusal extends Error {}

const NON_PUBLIC = 'the host resolves to a non-public address';

/**
 * Re-checks the address a socket actually connected to, so a DNS answer that changed between lookup and
 * connect (rebinding) or a path that skipped our lookup cannot reach a non-public address.
 */
export function guardConnection(socket: Socket, allowLoopback: boolean, refuse: (error: Error) => void): void {
  const check = (): void => {
    if (!isPermittedAddress(socket.remoteAddress ?? '', allowLoopback)) refuse(new FetchRefusal(NON_PUBLIC));
  };
  if (!socket.connecting && socket.remoteAddress !== undefined) check();
  else socket.once('connect', check);
}

function safeLookup(allowLoopback: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints ?? 0 }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      // Refusing the whole answer, not just filtering it, keeps a partly internal host from working by luck.
      const first = addresses[0];
      if (!first || addresses.some((entry) => !isPermittedAddress(entry.address, allowLoopback))) {
        return callback(new FetchRefusal(NON_PUBLIC), '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

function isJsonMediaType(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType);
}

// Only outcomes a client developer can act on are named; socket and TLS internals stay out of the message.
function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof FetchRefusal) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ETIMEDOUT') return `no complete answer within ${timeoutMs} ms`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was closed before the document was received';
  if (code.startsWith('HPE_')) return 'the response is not valid HTTP';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SIGNATURE|ISSUER/.test(code)) {
    return 'the TLS certificate of the host could not be verified';
  }
  return 'the connection failed';
}

/**
 * GETs an https URL without following redirects, sending no cookies or credentials, refusing non-public
 * addresses, non-JSON answers, statuses other than 200 and bodies over `maxBytes`; throws
 * CimdError('fetch_failed') on every failure.
 */
export function safeFetch(url: URL, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  const failure = (reason: string) => new CimdError('fetch_failed', `The document at ${url.href} could not be fetched: ${reason}.`);
  if (url.protocol !== 'https:') return Promise.reject(failure('only https is fetched'));
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // Node connects to an IP literal without calling `lookup`, so the rule is applied here as well.
  if (net.isIP(hostname) !== 0 && !isPermittedAddress(hostname, options.allowLoopback)) {
    return Promise.reject(failure(NON_PUBLIC));
  }

  return new Promise<SafeFetchResponse>((resolve, reject) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let received = 0;
    const tooLarge = `response larger than ${options.maxBytes} bytes`;

    const request = https.request({
      protocol: 'https:',
      hostname,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'schoolgate-cimd-resolver' },
      // A private socket per fetch: a pooled connection would skip the connect-time address check.
      agent: false,
      lookup: safeLookup(options.allowLoopback),
      maxHeaderSize: 16 * 1024,
    });

    const finish = (outcome: { error: unknown } | { response: SafeFetchResponse }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ('response' in outcome) {
        resolve(outcome.response);
        request.destroy();
      } else {
        reject(failure(describeError(outcome.error, options.timeoutMs)));
        request.destroy();
      }
    };
    const refuse = (reason: string): void => finish({ error: new FetchRefusal(reason) });

    const timer = setTimeout(() => refuse(`no complete answer within ${options.timeoutMs} ms`), options.timeoutMs);

    request.on('error', (error) => finish({ error }));
    request.on('socket', (socket) => guardConnection(socket, options.allowLoopback, (error) => finish({ error })));
    request.on('response', (response) => {
      response.on('error', (error) => finish({ error }));
      response.on('close', () => {
        if (!response.complete) finish({ error: new FetchRefusal('the connection was closed before the document was received') });
      });
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) return refuse('redirects are not followed');
      if (status !== 200) return refuse(`the server answered with HTTP status ${status} instead of 200`);
      if (!isJsonMediaType(response.headers['content-type'])) {
        return refuse('the response is not JSON (Content-Type must be application/json)');
      }
      const encoding = response.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        return refuse('the response is compressed, serve it uncompressed');
      }
      const declared = response.headers['content-length'];
      if (declared !== undefined && Number(declared) > options.maxBytes) return refuse(tooLarge);

      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received > options.maxBytes) return refuse(tooLarge);
        chunks.push(chunk);
      });
      response.on('end', () => {
        let body: string;
        try {
          body = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
        } catch {
          return refuse('the response is not valid UTF-8');
        }
        finish({ response: { status, headers: response.headers, body } });
      });
    });
    request.end();
  });
}
