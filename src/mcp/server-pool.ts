// The MCP servers a node keeps: one per site and caller kind (anonymous, or a token's scopes), built on the
// first request that needs it. A server depends on nothing else: its tools come from the site's variant and
// settings and the caller's scopes, its name and instructions from the site. The site directory hands out a
// new Site object whenever it re-reads a site (every few seconds, and at once on a `flush` signal), so keying
// by the object rebuilds servers after any change of the site and lets the old ones be collected.
import type { Caller } from '../operations/registry.js';
import type { Site } from '../sites/site.js';
import { buildMcpServer, type CallerServer, type McpServerOptions } from './mcp-server.js';
import { setBounded } from '../kernel/bounded-map.js';

/** Distinct scope sets kept per site: tokens hold a few combinations; past this the oldest is rebuilt when needed. */
export const SERVERS_PER_SITE = 32;

function callerKey(caller: Caller): string {
  return caller.authenticated ? `token:${caller.scopes.join(' ')}` : 'anonymous';
}

export class McpServerPool {
  private readonly bySite = new WeakMap<Site, Map<string, Promise<CallerServer>>>();

  constructor(private readonly options: McpServerOptions) {}

  /** The connected server for this caller at this site. */
  serverFor(site: Site, caller: Caller): Promise<CallerServer> {
    let servers = this.bySite.get(site);
    if (servers === undefined) {
      servers = new Map();
      this.bySite.set(site, servers);
    }
    const key = callerKey(caller);
    const known = servers.get(key);
    if (known !== undefined) return known;
    const built = buildMcpServer(site, caller, this.options);
    const connected = built.server.connect(built.transport).then(() => built);
    // A failed connect (not expected: the transport's start does nothing) must not stay cached.
    connected.catch(() => servers.delete(key));
    setBounded(servers, key, connected, SERVERS_PER_SITE);
    return connected;
  }
}
