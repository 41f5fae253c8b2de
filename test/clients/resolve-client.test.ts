// clients/resolve-client.ts: a member application resolves to its client once per cached row (the row's
// JSON parsed once), the object is frozen because requests share it, a changed row gives a new client, and
// the site's MCP switch is still checked on every resolution.
import { describe, expect, it } from 'vitest';
import { ClientRefusedError } from '../../src/clients/client.js';
import { looksLikeCimdClientId } from '../../src/clients/cimd/client-id-url.js';
import type { CimdResolver } from '../../src/clients/cimd/resolver.js';
import { createClientResolver } from '../../src/clients/resolve-client.js';
import type { Site } from '../../src/sites/site.js';
import type { MemberClientsTable } from '../../src/storage/schema.js';

const site: Site = { id: 'site_r', slug: 'r', name: 'R', origin: 'http://r.test', variant: 'A', mcpBeta: true };
// Member application ids are no document URLs, so no document is ever fetched here.
const noCimd: CimdResolver = { isCimdClientId: looksLikeCimdClientId, resolve: () => Promise.reject(new Error('no documents here')) };
const row = (scopes: string): MemberClientsTable => ({
  client_id: 'app',
  site_id: site.id,
  name: 'App',
  kind: 'confidential',
  secret_hash: 'hash',
  redirect_uris: '["http://127.0.0.1/cb"]',
  scopes,
  created_at: 1,
});

describe('member application clients', () => {
  it('builds one frozen client per cached row and a new one when the row changes', async () => {
    let current = row('openid account:read');
    const resolver = createClientResolver(
      async () => current,
      [],
      noCimd,
      async () => null,
    );
    const first = await resolver.resolve(site, 'app');
    expect(await resolver.resolve(site, 'app')).toBe(first);
    expect(first?.redirectUris).toEqual(['http://127.0.0.1/cb']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => first?.allowedScopes.push('admin')).toThrow(TypeError);
    current = row('openid');
    const changed = await resolver.resolve(site, 'app');
    expect(changed).not.toBe(first);
    expect(changed?.allowedScopes).toEqual(['openid']);
  });

  it('still refuses every resolution while the site has MCP connections turned off', async () => {
    const cached = row('openid');
    const resolver = createClientResolver(
      async () => cached,
      [],
      noCimd,
      async () => null,
    );
    await resolver.resolve(site, 'app');
    await expect(resolver.resolve({ ...site, mcpBeta: false }, 'app')).rejects.toBeInstanceOf(ClientRefusedError);
  });
});
