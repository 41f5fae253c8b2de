// Client resolution (SPEC 4.2, 5.2): the one place that turns a client_id into a Client, whether it
// names a member application of this site, a vendor integration of the platform, or a Client ID
// Metadata Document URL. Throws CimdError when a document or its host is refused.
import type { VendorIntegration } from '../config/config.js';
import { audienceScopes, UNREVIEWED_CIMD_SCOPES } from '../oauth/scopes.js';
import type { Site } from '../sites/site.js';
import type { MemberClientsTable } from '../storage/schema.js';
import type { CimdResolver } from './cimd/resolver.js';
import { CimdError } from './cimd/types.js';
import { type Client, type ClientAudience, ClientRefusedError } from './client.js';
import type { ClientDecision } from './site-client-decisions.repository.js';

export interface ClientResolver {
  resolve(site: Site, clientId: string): Promise<Client | undefined>;
  /**
   * The audience a client id belongs to, without I/O: Client ID Metadata Document URLs and vendor
   * integrations are operator clients, every other id names a member application (SPEC 5.2).
   */
  audienceOf(clientId: string): ClientAudience;
}

/** Finds a member application of a site (a repository read, or a cached one: services.ts). */
export type MemberAppLookup = (siteId: string, clientId: string) => Promise<MemberClientsTable | undefined>;

/** A site's own decision on a Client ID Metadata Document client, or null (the platform default). */
export type ClientDecisionLookup = (siteId: string, clientId: string) => Promise<ClientDecision | null>;

/** A member application as a client; frozen, because every request that resolves it shares the object. */
function memberAppClient(app: MemberClientsTable): Client {
  const ceiling = audienceScopes('member');
  const granted = app.scopes.split(' ');
  const redirectUris: string[] = Object.freeze(JSON.parse(app.redirect_uris) as string[]) as string[];
  const allowedScopes: string[] = Object.freeze(ceiling.filter((s) => granted.includes(s))) as string[];
  return Object.freeze({
    clientId: app.client_id,
    name: app.name,
    audience: 'member',
    source: 'member-app',
    authMethod: app.kind === 'confidential' ? 'client_secret_post' : 'none',
    secretHash: app.secret_hash,
    redirectUris,
    allowedScopes,
    documentHost: null,
  });
}

export function createClientResolver(
  memberApps: MemberAppLookup,
  vendors: readonly VendorIntegration[],
  cimd: CimdResolver,
  decisions: ClientDecisionLookup,
): ClientResolver {
  const vendorById = new Map(vendors.map((v) => [v.client_id, v]));
  const memberClients = new WeakMap<MemberClientsTable, Client>();
  return {
    audienceOf(clientId) {
      return cimd.isCimdClientId(clientId) || vendorById.has(clientId) ? 'operator' : 'member';
    },
    async resolve(site, clientId) {
      if (cimd.isCimdClientId(clientId)) {
        // The site's decision wins over the platform's reviewed_hosts, both ways.
        const decision = await decisions(site.id, clientId);
        if (decision === 'blocked') {
          throw new ClientRefusedError(
            'blocked',
            `${site.name} has blocked this application. Contact the school if you think this is a mistake.`,
          );
        }
        const doc = await cimd.resolve(clientId);
        // We authenticate clients with `none` or `client_secret_post` only, and a document may not carry secrets.
        if (doc.tokenEndpointAuthMethod !== 'none') {
          throw new CimdError(
            'invalid_document',
            `token_endpoint_auth_method ${doc.tokenEndpointAuthMethod} is not supported here; use none`,
          );
        }
        const reviewed = decision === 'reviewed' || doc.reviewed;
        const ceiling = reviewed ? audienceScopes('operator') : UNREVIEWED_CIMD_SCOPES;
        const declared = doc.scope ? doc.scope.split(' ') : null;
        return {
          clientId: doc.clientId,
          name: doc.clientName ?? doc.host,
          audience: 'operator',
          source: 'cimd',
          authMethod: 'none',
          secretHash: null,
          redirectUris: doc.redirectUris,
          allowedScopes: declared ? ceiling.filter((s) => declared.includes(s)) : [...ceiling],
          documentHost: doc.host,
        };
      }
      const vendor = vendorById.get(clientId);
      if (vendor) {
        const ceiling = audienceScopes('operator');
        return {
          clientId: vendor.client_id,
          name: vendor.client_name,
          audience: 'operator',
          source: 'vendor',
          authMethod: vendor.token_endpoint_auth_method,
          secretHash: null,
          redirectUris: vendor.redirect_uris,
          allowedScopes: vendor.scopes ? ceiling.filter((s) => vendor.scopes?.includes(s)) : [...ceiling],
          documentHost: null,
        };
      }
      const app = await memberApps(site.id, clientId);
      if (!app) return undefined;
      if (!site.mcpBeta) {
        throw new ClientRefusedError(
          'mcp_connections_off',
          `${site.name} has turned off MCP connections, so its member applications cannot be used for now. Contact the school.`,
        );
      }
      // A cached row is the same object on every hit: its client is built once (the row's JSON parsed once).
      let client = memberClients.get(app);
      if (!client) {
        client = memberAppClient(app);
        memberClients.set(app, client);
      }
      return client;
    },
  };
}
