// The full MCP authorization dance driven by the MCP SDK's own client-side `auth()` (issue 4, section 3;
// MCP 2025-06-18 / 2025-11-25 "Authorization"; SPEC 4.1, 4.2, 5.1, 5.3): a 401 with `resource_metadata`,
// protected resource metadata, authorization server metadata, then either registration at our endpoint
// (the Demo Vendor) or a Client ID Metadata Document served over HTTPS on loopback; sign-in and consent
// over HTTP; the code exchanged through the SDK's finishAuth path; then operator tools through the SDK's
// Client with the provider as its authProvider. Nothing here builds an OAuth request by hand: every
// parameter on the wire is the SDK's, so this fails when our server and the SDK stop understanding each
// other.
//
// Scope: `auth()` picks the scope as (1) its `scope` option (the transport passes the 401 challenge's
// `scope` there), else (2) every entry of the protected resource metadata's `scopes_supported`, else
// (3) `clientMetadata.scope`. Our metadata lists every scope of both audiences, which no single client may
// hold (operator clients cannot hold account:read, SPEC 5.2), so a scope-less auth() would be refused with
// invalid_scope; these tests pass the operator read scopes as `scope`, as a client does after reading the
// challenge, and the clientMetadata.scope below is never used for the authorization request.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CimdServer, startCimdServer } from '../helpers/cimd-server.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { challengeParams, mcpPost, structured, toolCall } from '../helpers/mcp.js';
import { InMemoryOAuthProvider } from '../helpers/mcp-oauth-provider.js';
import { person } from '../helpers/person.js';

const PUBLIC_TOOLS = ['get_course', 'get_school', 'list_upcoming_events', 'search_courses'];
const OPERATOR_READ_SCOPE = 'courses:read students:read events:read';
/** The lists among them, callable without arguments. */
const OPERATOR_LIST_TOOLS = ['list_courses', 'list_events', 'list_students'];
const OPERATOR_READ_TOOLS = [...OPERATOR_LIST_TOOLS, 'get_student', 'list_course_enrollments', 'list_event_registrations'];
/** The client's loopback callback. Nothing listens there: the Person stops at the redirect to it. */
const REDIRECT_URL = 'http://127.0.0.1:61234/callback';
const CIMD_PATH = '/mcp-client.json';

interface Paged {
  total: number;
  items: unknown[];
}

/** The form parameters of the one token request the SDK sent. */
function tokenRequestParams(provider: InMemoryOAuthProvider): URLSearchParams {
  const sent = provider.requestsTo('/api/oauth/token');
  expect(sent).toHaveLength(1);
  return new URLSearchParams(sent[0]?.body ?? '');
}

/**
 * Step 1 of the dance, as a client meets it: an operator tool called without a token. The answer is
 * 401 with a challenge that names the protected resource metadata and the scope the tool needs.
 */
async function unauthenticatedCall(origin: string): Promise<URL> {
  const answer = await mcpPost(origin, toolCall('list_courses'));
  expect(answer.status).toBe(401);
  const challenge = challengeParams(answer.headers.get('www-authenticate'));
  expect(challenge.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource`);
  expect(challenge.scope).toBe('courses:read');
  return new URL(String(challenge.resource_metadata));
}

/**
 * The person at the browser: the owner signs in and allows. Returns the code after checking the
 * callback is the provider's redirect URL with the SDK's state and our issuer (RFC 9207).
 */
async function ownerAllows(provider: InMemoryOAuthProvider, origin: string): Promise<string> {
  const callback = await person('owner').authorize(provider.lastAuthorizationUrl().href);
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URL);
  expect(callback.searchParams.get('error')).toBeNull();
  expect(callback.searchParams.get('iss')).toBe(origin);
  expect(callback.searchParams.get('state')).toBe(provider.lastState);
  const code = callback.searchParams.get('code');
  expect(code).toBeTruthy();
  return String(code);
}

/** The SDK's own Client over Streamable HTTP, authenticated by the provider's saved tokens. */
async function connectWith(provider: InMemoryOAuthProvider, origin: string): Promise<Client> {
  const client = new Client({ name: 'schoolgate-auth-dance', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { authProvider: provider }));
  return client;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`the MCP SDK auth() dance (${dialect})`, () => {
    let server: DemoServer;
    let cimd: CimdServer;
    beforeAll(async () => {
      [server, cimd] = await Promise.all([startDemoServer(dialect), startCimdServer()]);
    });
    afterAll(async () => {
      await Promise.all([server?.close(), cimd?.close()]);
    });

    it('registers as the Demo Vendor, lets the owner allow, finishes with the code, and then operator tools work at this origin only', async () => {
      const origin = server.academy;
      const serverUrl = `${origin}/mcp`;
      const resourceMetadataUrl = await unauthenticatedCall(origin);
      const provider = new InMemoryOAuthProvider({
        redirectUrl: REDIRECT_URL,
        clientMetadata: {
          client_name: 'Demo Vendor',
          redirect_uris: [REDIRECT_URL],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          // Only the SDK's last scope fallback (see the header): registration sends the resolved scope instead.
          scope: OPERATOR_READ_SCOPE,
        },
      });

      const started = await auth(provider, { serverUrl, resourceMetadataUrl, scope: OPERATOR_READ_SCOPE, fetchFn: provider.fetch });
      expect(started).toBe('REDIRECT');
      // Discovery went through the challenge's resource metadata, then our AS metadata.
      expect(provider.requests.map((r) => `${r.method} ${r.url.pathname} ${r.status}`)).toEqual([
        'GET /.well-known/oauth-protected-resource 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /api/oauth/register 201',
      ]);
      // Registration: our endpoint matched the SDK's client metadata to the Demo Vendor integration.
      const registration = JSON.parse(provider.requestsTo('/api/oauth/register')[0]?.body ?? '{}') as Record<string, unknown>;
      expect(registration.client_name).toBe('Demo Vendor');
      expect(registration.redirect_uris).toEqual([REDIRECT_URL]);
      expect(registration.scope).toBe(OPERATOR_READ_SCOPE);
      expect(provider.clientInformation()?.client_id).toBe('demo-vendor');

      // The authorization URL is the SDK's: PKCE S256, resource = our origin, the scope asked for.
      const authorizationUrl = provider.lastAuthorizationUrl();
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${origin}/oauth/authorize`);
      expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: 'demo-vendor',
        redirect_uri: REDIRECT_URL,
        code_challenge_method: 'S256',
        resource: origin,
        scope: OPERATOR_READ_SCOPE,
      });

      const code = await ownerAllows(provider, origin);
      // The SDK's finishAuth path: the same auth() with the code, discovery again, then the token request.
      expect(await auth(provider, { serverUrl, authorizationCode: code, fetchFn: provider.fetch })).toBe('AUTHORIZED');
      const params = tokenRequestParams(provider);
      expect(Object.fromEntries(params)).toMatchObject({
        grant_type: 'authorization_code',
        code,
        client_id: 'demo-vendor',
        redirect_uri: REDIRECT_URL,
        resource: origin,
        code_verifier: provider.codeVerifier(),
      });
      const tokens = provider.tokens();
      expect(tokens?.token_type.toLowerCase()).toBe('bearer');
      expect(tokens?.scope).toBe(OPERATOR_READ_SCOPE);
      expect(tokens?.refresh_token).toBeTruthy();

      const client = await connectWith(provider, origin);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name).sort();
        expect(names).toEqual([...PUBLIC_TOOLS, ...OPERATOR_READ_TOOLS].sort());
        const courses = structured<Paged>(await client.callTool({ name: 'list_courses', arguments: { limit: 5 } }));
        expect(courses.total).toBeGreaterThan(0);
        expect(courses.items.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }

      // The token is bound to this origin (the `resource` above): the other demo site refuses it with a
      // challenge pointing at its own metadata, never serving it as anonymous.
      const elsewhere = await mcpPost(server.studio, toolCall('list_courses'), { token: tokens?.access_token ?? '' });
      expect(elsewhere.status).toBe(401);
      const challenge = challengeParams(elsewhere.headers.get('www-authenticate'));
      expect(challenge.error).toBe('invalid_token');
      expect(challenge.resource_metadata).toBe(`${server.studio}/.well-known/oauth-protected-resource`);
    });

    it('uses a Client ID Metadata Document served over HTTPS instead of registering, and the owner-approved read scopes work', async () => {
      const origin = server.academy;
      const serverUrl = `${origin}/mcp`;
      const documentUrl = cimd.serveDocument(CIMD_PATH, {
        client_id: cimd.url(CIMD_PATH),
        client_name: 'Loopback Assistant',
        redirect_uris: [REDIRECT_URL],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const resourceMetadataUrl = await unauthenticatedCall(origin);
      const provider = new InMemoryOAuthProvider({
        redirectUrl: REDIRECT_URL,
        clientMetadataUrl: documentUrl,
        clientMetadata: {
          client_name: 'Loopback Assistant',
          redirect_uris: [REDIRECT_URL],
          token_endpoint_auth_method: 'none',
        },
      });

      expect(await auth(provider, { serverUrl, resourceMetadataUrl, scope: OPERATOR_READ_SCOPE, fetchFn: provider.fetch })).toBe(
        'REDIRECT',
      );
      // Our AS metadata says client_id_metadata_document_supported: true, so the SDK took the document URL
      // as its client_id and never called the registration endpoint.
      expect(provider.requestsTo('/api/oauth/register')).toEqual([]);
      expect(provider.clientInformation()?.client_id).toBe(documentUrl);
      expect(provider.lastAuthorizationUrl().searchParams.get('client_id')).toBe(documentUrl);

      const code = await ownerAllows(provider, origin);
      // Our server resolved the document over HTTPS to show the consent page.
      expect(cimd.hits(CIMD_PATH)).toBeGreaterThanOrEqual(1);
      expect(await auth(provider, { serverUrl, authorizationCode: code, fetchFn: provider.fetch })).toBe('AUTHORIZED');
      expect(provider.requestsTo('/api/oauth/register')).toEqual([]);
      expect(Object.fromEntries(tokenRequestParams(provider))).toMatchObject({ client_id: documentUrl, resource: origin });
      expect(provider.tokens()?.scope).toBe(OPERATOR_READ_SCOPE);

      const client = await connectWith(provider, origin);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name).sort();
        expect(names).toEqual([...PUBLIC_TOOLS, ...OPERATOR_READ_TOOLS].sort());
        for (const name of OPERATOR_LIST_TOOLS) {
          const page = structured<Paged>(await client.callTool({ name, arguments: {} }));
          expect(page.total).toBeGreaterThan(0);
        }
      } finally {
        await client.close();
      }
    });
  });
}
