// Signing keys (SPEC 4.1, 5.3; issue 2 section 3): per-site ES256 keys published at jwks_uri, private
// keys sealed at rest, rotation that publishes a key before it signs and keeps a retired key
// published until every ID token it signed has expired.
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { unseal } from '../../src/kernel/sealing.js';
import { MIN_NEXT_KEY_AGE_SECONDS, rotateSiteKeys, signingKeyEncryptionKey } from '../../src/keys/signing-keys.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

type Jwk = Record<string, unknown> & { kid: string };

const CLIENT_ID = 'academy-member-app';
const REDIRECT_URI = 'http://127.0.0.1:51234/callback';
/** JWK members that carry private key material (RFC 7518 6.2.2, 6.3.2, 6.4). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

async function jwks(origin: string): Promise<Jwk[]> {
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as { jwks_uri: string };
  const res = await fetch(metadata.jwks_uri);
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: Jwk[] }).keys;
}

const kids = (keys: Jwk[]) => keys.map((k) => k.kid);

function siteId(server: DemoServer, origin: string): string {
  return server.siteIdOf(origin);
}

/** A student authorizes the public member app with `openid` and the code is exchanged: the ID token. */
async function idToken(server: DemoServer, nonce: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${server.academy}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    resource: server.academy,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'rotation',
    nonce,
  }).toString();
  const callback = await person('student').authorize(url.href);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  const res = await fetch(`${server.academy}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: verifier,
      resource: server.academy,
    }).toString(),
  });
  const body = (await res.json()) as { id_token?: string };
  expect(res.status).toBe(200);
  if (!body.id_token) throw new Error('no id_token in the token response');
  return body.id_token;
}

/** Verifies an ID token against the JWKS as a relying party would (SPEC 5.3), at the server's time. */
async function verify(server: DemoServer, token: string, keys: Jwk[], nonce: string) {
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet({ keys } as JSONWebKeySet), {
    issuer: server.academy,
    audience: CLIENT_ID,
    algorithms: ['ES256'],
    currentDate: new Date(server.clock.now()),
  });
  expect(payload.nonce).toBe(nonce);
  return protectedHeader;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`signing keys and rotation (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    it('publishes two keys per site (active and next), each with kid, alg ES256, use sig and no private parts', async () => {
      for (const origin of [server.academy, server.studio]) {
        const keys = await jwks(origin);
        expect(keys).toHaveLength(2);
        expect(new Set(kids(keys)).size).toBe(2);
        for (const key of keys) {
          expect(typeof key.kid).toBe('string');
          expect(key.kid.length).toBeGreaterThan(0);
          expect(key.alg).toBe('ES256');
          expect(key.use).toBe('sig');
          expect(key.kty).toBe('EC');
          expect(key.crv).toBe('P-256');
          expect(typeof key.x).toBe('string');
          expect(typeof key.y).toBe('string');
          for (const member of PRIVATE_MEMBERS) expect(key, `${origin} ${key.kid} ${member}`).not.toHaveProperty(member);
        }
      }
    });

    it('serves the JWKS as application/jwk-set+json or JSON', async () => {
      const res = await fetch(`${server.academy}/.well-known/jwks.json`);
      expect(res.headers.get('content-type')).toMatch(/^application\/(jwk-set\+)?json/);
    });

    it('gives every site its own keys', async () => {
      const academy = kids(await jwks(server.academy));
      const studio = kids(await jwks(server.studio));
      for (const kid of academy) expect(studio).not.toContain(kid);
    });

    it('keeps private keys sealed in the database: not a JWK, only opened with SCHOOLGATE_SECRET, matching the published key', async () => {
      const rows = await server.store.db.selectFrom('signing_keys').select(['kid', 'public_jwk', 'private_jwk_sealed']).execute();
      expect(rows.length).toBeGreaterThanOrEqual(4);
      const masterKey = signingKeyEncryptionKey(server.config.secret);
      const wrongKey = signingKeyEncryptionKey(randomBytes(32).toString('base64url'));
      for (const row of rows) {
        expect(() => JSON.parse(row.private_jwk_sealed)).toThrow();
        expect(row.private_jwk_sealed).not.toContain('"d"');
        expect(row.public_jwk).not.toMatch(/"d"\s*:/);
        expect(() => unseal(wrongKey, row.private_jwk_sealed, row.kid)).toThrow();
        const privateJwk = JSON.parse(unseal(masterKey, row.private_jwk_sealed, row.kid)) as Record<string, string>;
        const publicJwk = JSON.parse(row.public_jwk) as Record<string, string>;
        expect(typeof privateJwk.d).toBe('string');
        expect(privateJwk.x).toBe(publicJwk.x);
        expect(privateJwk.y).toBe(publicJwk.y);
        // The kid is bound to its row: a sealed key moved onto another kid does not open.
        const other = rows.find((r) => r.kid !== row.kid);
        if (other) expect(() => unseal(masterKey, row.private_jwk_sealed, other.kid)).toThrow();
      }
    });

    it('signs ID tokens with ES256 and a kid published in the JWKS before the token was issued', async () => {
      const before = await jwks(server.academy);
      const token = await idToken(server, 'n-first');
      const header = decodeProtectedHeader(token);
      expect(header.alg).toBe('ES256');
      expect(kids(before)).toContain(header.kid);
      await verify(server, token, before, 'n-first');
    });

    it('rotates publish-before-use, keeps the retired key published, signs with the new key, and drops the retired key after its window', async () => {
      const id = siteId(server, server.academy);
      const masterKey = signingKeyEncryptionKey(server.config.secret);
      const idTokenLifetime = server.config.platform.lifetimes.id_token;
      // As `schoolgate keys rotate` does: the ID token lifetime plus a margin for clock skew.
      const retireAfterSeconds = idTokenLifetime + 120;

      const oldToken = await idToken(server, 'n-old');
      const oldKid = String(decodeProtectedHeader(oldToken).kid);
      const before = await jwks(server.academy);

      const first = await rotateSiteKeys(server.store.db, id, masterKey, retireAfterSeconds, server.clock);
      server.app.services.keys.invalidate(id);
      expect(first.retired).toEqual([oldKid]);
      // Publish before use: the key that now signs was already in the JWKS relying parties cached.
      expect(kids(before)).toContain(first.activated);
      expect(first.activated).not.toBe(oldKid);

      const after = await jwks(server.academy);
      expect(kids(after)).toContain(oldKid);
      expect(kids(after)).toContain(first.activated);
      expect(kids(after)).toContain(first.next);
      expect(after).toHaveLength(3);
      // An ID token signed before the rotation still verifies against the JWKS after it.
      expect((await verify(server, oldToken, after, 'n-old')).kid).toBe(oldKid);

      // A new ID token is signed with the newly active key, which verifies too.
      const newToken = await idToken(server, 'n-new');
      expect(decodeProtectedHeader(newToken).kid).toBe(first.activated);
      await verify(server, newToken, after, 'n-new');

      // Until every token the retired key signed has expired, it stays published.
      server.clock.advance(idTokenLifetime * 1000);
      server.app.services.keys.invalidate(id);
      expect(kids(await jwks(server.academy))).toContain(oldKid);

      // Past the retirement window it leaves the JWKS, and the next rotation deletes it.
      server.clock.advance((retireAfterSeconds - idTokenLifetime) * 1000 + 1000);
      server.app.services.keys.invalidate(id);
      expect(kids(await jwks(server.academy))).not.toContain(oldKid);
      const second = await rotateSiteKeys(server.store.db, id, masterKey, retireAfterSeconds, server.clock);
      server.app.services.keys.invalidate(id);
      expect(second.activated).toBe(first.next);
      expect(second.retired).toEqual([first.activated]);
      const final = await jwks(server.academy);
      expect(kids(final)).not.toContain(oldKid);
      expect(kids(final).sort()).toEqual([first.activated, first.next, second.next].sort());
      const stored = await server.store.db.selectFrom('signing_keys').select('kid').where('site_id', '=', id).execute();
      expect(stored.map((r) => r.kid)).not.toContain(oldKid);
      expect(decodeProtectedHeader(await idToken(server, 'n-second')).kid).toBe(second.activated);
    });

    it('leaves the other site’s keys alone when one site rotates', async () => {
      const before = kids(await jwks(server.studio));
      const id = siteId(server, server.academy);
      await rotateSiteKeys(server.store.db, id, signingKeyEncryptionKey(server.config.secret), 720, server.clock);
      server.app.services.keys.invalidate(id);
      expect(kids(await jwks(server.studio)).sort()).toEqual([...before].sort());
    });

    it('rotates with `schoolgate keys rotate`: the activated key was published, the retired one stays, and keys.rotated is audited', async () => {
      const id = siteId(server, server.academy);
      const before = kids(await jwks(server.academy));
      const token = await idToken(server, 'n-cli');
      const signedBy = String(decodeProtectedHeader(token).kid);
      let stdout = '';
      let stderr = '';
      // The demo's next key was published moments ago: give relying parties' JWKS caches time first.
      server.clock.advance(MIN_NEXT_KEY_AGE_SECONDS * 1000);
      const code = await runCli(
        ['keys', 'rotate', '--site', 'demo-academy'],
        {
          stdout: { write: (chunk: string) => (stdout += chunk) },
          stderr: { write: (chunk: string) => (stderr += chunk) },
        },
        { DATABASE_URL: server.config.databaseUrl, SCHOOLGATE_SECRET: server.config.secret },
        { clock: server.clock },
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      server.app.services.keys.invalidate(id);
      const after = kids(await jwks(server.academy));
      const active = await server.store.db
        .selectFrom('signing_keys')
        .select('kid')
        .where('site_id', '=', id)
        .where('state', '=', 'active')
        .executeTakeFirstOrThrow();
      expect(before).toContain(active.kid);
      expect(stdout).toContain(active.kid);
      expect(after).toContain(signedBy);
      await verify(server, token, (await jwks(server.academy)) as Jwk[], 'n-cli');
      // Still published when the token it signed expires.
      server.clock.advance(server.config.platform.lifetimes.id_token * 1000);
      server.app.services.keys.invalidate(id);
      expect(kids(await jwks(server.academy))).toContain(signedBy);
      const audit = await server.store.db
        .selectFrom('audit_events')
        .selectAll()
        .where('site_id', '=', id)
        .where('kind', '=', 'keys.rotated')
        .execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]?.detail ?? '{}')).toMatchObject({ activated: active.kid, retired: [signedBy] });
    });
  });
}
