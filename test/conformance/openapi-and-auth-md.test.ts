// /openapi.json and /auth.md (SPEC 1, 4.1; issue 2 section 3): generated per origin from the live
// routes and metadata, so every URL and scope they name is this site's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';

type Json = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every endpoint of issue 2, with the method it is called with. */
const DOCUMENTED: ReadonlyArray<[path: string, method: string]> = [
  ['/.well-known/oauth-authorization-server', 'get'],
  ['/.well-known/openid-configuration', 'get'],
  ['/.well-known/oauth-protected-resource', 'get'],
  ['/.well-known/jwks.json', 'get'],
  ['/auth.md', 'get'],
  ['/openapi.json', 'get'],
  ['/oauth/authorize', 'get'],
  ['/api/oauth/token', 'post'],
  ['/api/oauth/revoke', 'post'],
  ['/api/oauth/introspect', 'post'],
  ['/api/oauth/userinfo', 'get'],
  ['/api/oauth/register', 'post'],
];

async function openapi(origin: string, headers: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(`${origin}/openapi.json`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Json;
}

async function authMd(origin: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${origin}/auth.md`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
  return res.text();
}

async function metadata(origin: string): Promise<Json> {
  return (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Json;
}

/** Every value under `key` anywhere in a JSON tree. */
function collect(node: unknown, key: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const item of node) collect(item, key, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === key) out.push(v);
      collect(v, key, out);
    }
  }
  return out;
}

/** Resolves a local JSON pointer ref (`#/components/...`). */
function resolvePointer(document: Json, ref: string): unknown {
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(part in node)) return undefined;
    node = (node as Json)[part];
  }
  return node;
}

function operation(document: Json, path: string, method: string): Json {
  const item = (document.paths as Record<string, Json>)[path];
  expect(item, `${path} is documented`).toBeDefined();
  const op = item?.[method] as Json | undefined;
  expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  return op as Json;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`/openapi.json and /auth.md (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    for (const site of ['academy', 'studio'] as const) {
      describe(`at Demo ${site === 'academy' ? 'Academy' : 'Studio'}`, () => {
        const origin = () => server[site];

        it('serves a structurally valid OpenAPI 3.1 document', async () => {
          const doc = await openapi(origin());
          expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
          expect(doc.swagger).toBeUndefined();
          const info = doc.info as Json;
          expect(typeof info.title).toBe('string');
          expect(typeof info.version).toBe('string');
          const paths = doc.paths as Record<string, Json>;
          expect(Object.keys(paths).length).toBeGreaterThan(0);
          for (const [path, item] of Object.entries(paths)) {
            expect(path.startsWith('/'), path).toBe(true);
            for (const [method, op] of Object.entries(item)) {
              if (!HTTP_METHODS.includes(method)) continue;
              const responses = (op as Json).responses as Record<string, Json> | undefined;
              expect(responses, `${method} ${path} has responses`).toBeDefined();
              expect(Object.keys(responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
              for (const [code, response] of Object.entries(responses ?? {})) {
                expect(code, `${method} ${path}`).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
                if (!('$ref' in response)) expect(typeof response.description, `${method} ${path} ${code}`).toBe('string');
              }
              for (const parameter of ((op as Json).parameters as Json[] | undefined) ?? []) {
                expect(typeof parameter.name).toBe('string');
                expect(['query', 'header', 'path', 'cookie']).toContain(parameter.in);
              }
            }
          }
          // `nullable` is OpenAPI 3.0 only; 3.1 schemas are JSON Schema 2020-12.
          expect(collect(doc, 'nullable')).toEqual([]);
          for (const ref of collect(doc, '$ref')) {
            expect(typeof ref).toBe('string');
            expect(resolvePointer(doc, String(ref)), String(ref)).toBeDefined();
          }
        });

        it('names this origin as servers[0].url', async () => {
          const doc = await openapi(origin());
          expect((doc.servers as Json[])[0]?.url).toBe(origin());
        });

        it('documents every endpoint of the server with its method', async () => {
          const doc = await openapi(origin());
          for (const [path, method] of DOCUMENTED) operation(doc, path, method);
          // Every endpoint the metadata advertises is among them.
          const as = await metadata(origin());
          for (const field of [
            'authorization_endpoint',
            'token_endpoint',
            'userinfo_endpoint',
            'revocation_endpoint',
            'introspection_endpoint',
            'registration_endpoint',
            'jwks_uri',
          ]) {
            const path = new URL(String(as[field])).pathname;
            expect(Object.keys(doc.paths as Json), field).toContain(path);
          }
        });

        it('documents form-encoded bodies at the token, revocation and introspection endpoints and JSON at registration', async () => {
          const doc = await openapi(origin());
          for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
            const content = ((operation(doc, path, 'post').requestBody as Json).content ?? {}) as Json;
            expect(Object.keys(content), path).toEqual(['application/x-www-form-urlencoded']);
          }
          const token = ((operation(doc, '/api/oauth/token', 'post').requestBody as Json).content as Json)[
            'application/x-www-form-urlencoded'
          ] as Json;
          const fields = Object.keys((token.schema as Json).properties as Json);
          for (const field of ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'resource', 'refresh_token', 'client_id']) {
            expect(fields).toContain(field);
          }
          const register = (operation(doc, '/api/oauth/register', 'post').requestBody as Json).content as Json;
          expect(Object.keys(register)).toEqual(['application/json']);
        });

        it('documents the authorization request parameters of SPEC 4.2 as query parameters', async () => {
          const doc = await openapi(origin());
          const parameters = (operation(doc, '/oauth/authorize', 'get').parameters as Json[]).filter((p) => p.in === 'query');
          const names = parameters.map((p) => p.name);
          for (const name of [
            'response_type',
            'client_id',
            'redirect_uri',
            'scope',
            'resource',
            'code_challenge',
            'code_challenge_method',
            'state',
            'nonce',
          ]) {
            expect(names).toContain(name);
          }
        });

        it('marks UserInfo as protected by a bearer token', async () => {
          const doc = await openapi(origin());
          const schemes = ((doc.components as Json).securitySchemes ?? {}) as Record<string, Json>;
          const security = operation(doc, '/api/oauth/userinfo', 'get').security as Array<Record<string, unknown>>;
          const scheme = schemes[Object.keys(security[0] ?? {})[0] ?? ''];
          expect(scheme?.type).toBe('http');
          expect(String(scheme?.scheme).toLowerCase()).toBe('bearer');
        });

        it('keeps servers[0].url at the configured origin under a spoofed X-Forwarded-Host', async () => {
          const doc = await openapi(origin(), { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
          expect((doc.servers as Json[])[0]?.url).toBe(origin());
          expect(JSON.stringify(doc)).not.toContain('evil.example');
        });

        it('writes /auth.md with this origin’s real endpoint URLs from its metadata', async () => {
          const md = await authMd(origin());
          const as = await metadata(origin());
          for (const field of [
            'authorization_endpoint',
            'token_endpoint',
            'userinfo_endpoint',
            'revocation_endpoint',
            'introspection_endpoint',
            'registration_endpoint',
            'jwks_uri',
          ]) {
            expect(md, field).toContain(String(as[field]));
          }
          for (const path of [
            '/.well-known/oauth-authorization-server',
            '/.well-known/openid-configuration',
            '/.well-known/oauth-protected-resource',
          ]) {
            expect(md).toContain(`${origin()}${path}`);
          }
        });

        it('tells operator apps in /auth.md where the operator API is and that /openapi.json documents it (CONTRACT 6)', async () => {
          const md = await authMd(origin());
          expect(md).toContain(`${origin()}/api/admin/v1/`);
          expect(md).toContain(`${origin()}/openapi.json`);
          expect(md).toContain('Idempotency-Key');
          expect(md).toContain('If-Match');
          const document = (await (await fetch(`${origin()}/openapi.json`)).json()) as { paths: Record<string, unknown> };
          expect(Object.keys(document.paths).some((p) => p.startsWith('/api/admin/v1/'))).toBe(true);
        });

        it('names the resource value (the origin) and the PKCE and iss rules in /auth.md', async () => {
          const md = await authMd(origin());
          const pr = (await (await fetch(`${origin()}/.well-known/oauth-protected-resource`)).json()) as Json;
          expect(md).toContain(`\`${String(pr.resource)}\``);
          expect(md).toContain(`resource=${encodeURIComponent(origin())}`);
          expect(md).toContain('code_challenge_method=S256');
          expect(md).toContain('iss');
          expect(md).toContain('invalid_target');
        });

        it('lists every advertised scope in /auth.md and no offline_access', async () => {
          const md = await authMd(origin());
          const as = await metadata(origin());
          for (const scope of as.scopes_supported as string[]) expect(md, scope).toContain(scope);
          expect(md).not.toContain('offline_access');
        });

        it('names this site’s variant GraphQL path in /auth.md (SPEC 1)', async () => {
          const md = await authMd(origin());
          const [own, other] = site === 'academy' ? ['/member/graphql', '/account/graphql'] : ['/account/graphql', '/member/graphql'];
          expect(md).toContain(`${origin()}${own}`);
          expect(md).not.toContain(other);
        });

        it('keeps /auth.md at the configured origin under a spoofed X-Forwarded-Host', async () => {
          const md = await authMd(origin(), { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
          expect(md).toContain(`${origin()}/api/oauth/token`);
          expect(md).not.toContain('evil.example');
        });
      });
    }

    it('writes a different /auth.md for each site, each naming only its own origin', async () => {
      const academy = await authMd(server.academy);
      const studio = await authMd(server.studio);
      expect(academy).not.toBe(studio);
      expect(academy).toContain(server.academy);
      expect(academy).not.toContain(server.studio);
      expect(studio).toContain(server.studio);
      expect(studio).not.toContain(server.academy);
      expect(academy).toContain('Demo Academy');
      expect(studio).toContain('Demo Studio');
    });

    it('gives each site its own servers[0].url in /openapi.json', async () => {
      expect(((await openapi(server.academy)).servers as Json[])[0]?.url).toBe(server.academy);
      expect(((await openapi(server.studio)).servers as Json[])[0]?.url).toBe(server.studio);
    });
  });
}
