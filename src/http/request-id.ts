// A request id on every request (issue 8, "Operations"): taken from X-Request-Id only when the request came
// through a trusted proxy and the value is well formed (so a client cannot forge ids into our logs or
// collide with another request's), else generated. It is in every log line (Fastify's reqId), echoed as
// X-Request-Id, and named in our error answers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(entry: string): Range | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

function normalised(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    const parsed = ipaddr.parse(address);
    return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  } catch {
    return undefined;
  }
}

/** Fastify's genReqId for this deployment's TRUST_PROXY (addresses or CIDR ranges). */
export function requestIdGenerator(trustProxy: readonly string[] | false): (request: IncomingMessage) => string {
  const ranges = trustProxy ? trustProxy.map(parseRange).filter((r): r is Range => r !== undefined) : [];
  const trusted = (remote: string | undefined): boolean => {
    if (!remote || ranges.length === 0) return false;
    const address = normalised(remote);
    return address !== undefined && ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  };
  return (request) => {
    const given = request.headers[REQUEST_ID_HEADER];
    if (typeof given === 'string' && WELL_FORMED.test(given) && trusted(request.socket.remoteAddress)) return given;
    return randomUUID();
  };
}
