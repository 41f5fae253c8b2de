// The per-site audit log (issue 2 section 4): sign-ins, consents, tokens issued, refreshed and revoked,
// reuse and replay detected, each for the right site, person and client; never a secret, token or
// password in it.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, listAudit } from '../../src/audit/audit-log.js';
import { findPersonByEmail } from '../../src/people/people.repository.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { DEMO, hiddenFields, person } from '../helpers/person.js';

type Json = Record<string, unknown>;

interface FlowClient {
  clientId: string;
  secret?: string;
  redirectUri: string;
}

const ACADEMY_APP: FlowClient = { clientId: 'academy-member-app', redirectUri: 'http://127.0.0.1:52001/callback' };
const ACADEMY_WEB: FlowClient = {
  clientId: 'academy-member-web',
  secret: 'academy-member-secret',
  redirectUri: 'http://127.0.0.1:8976/callback',
};
const STUDIO_APP: FlowClient = { clientId: 'studio-member-app', redirectUri: 'http://localhost:52002/callback' };

/** Every credential string a flow in this file handles; none may ever reach the audit log. */
const secrets = new Set<string>();

async function post(url: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

function authorizationUrl(origin: string, client: FlowClient, challenge: string, scope: string): string {
  const url = new URL(`${origin}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope,
    resource: origin,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'audit',
    nonce: 'audit-nonce',
  }).toString();
  return url.href;
}

const auth = (client: FlowClient) => ({ client_id: client.clientId, ...(client.secret ? { client_secret: client.secret } : {}) });

interface Issued {
  code: string;
  accessToken: string;
  refreshToken: string;
  idToken: string;
}

/** Authorization (sign-in + consent) and the code exchange; remembers every credential it saw. */
async function authorizeAndExchange(origin: string, client: FlowClient, who: keyof typeof DEMO): Promise<Issued> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const callback = await person(who).authorize(authorizationUrl(origin, client, challenge, 'openid profile email account:read'));
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  const tokens = await post(`${origin}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
    resource: origin,
    ...auth(client),
  });
  expect(tokens.status).toBe(200);
  const issued = {
    code,
    accessToken: String(tokens.body.access_token),
    refreshToken: String(tokens.body.refresh_token),
    idToken: String(tokens.body.id_token),
  };
  for (const value of [code, verifier, ...Object.values(issued)]) secrets.add(value);
  if (client.secret) secrets.add(client.secret);
  secrets.add(DEMO[who].password);
  return issued;
}

async function refresh(origin: string, client: FlowClient, refreshToken: string): Promise<{ status: number; body: Json }> {
  const answer = await post(`${origin}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, ...auth(client) });
  for (const field of ['access_token', 'refresh_token'])
    if (typeof answer.body[field] === 'string') secrets.add(String(answer.body[field]));
  return answer;
}

async function revoke(origin: string, client: FlowClient, token: string): Promise<void> {
  const res = await fetch(`${origin}/api/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, ...auth(client) }).toString(),
  });
  expect(res.status).toBe(200);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`audit log (${dialect})`, () => {
    let server: DemoServer;
    let academyId: string;
    let studioId: string;
    let studentId: string;
    let ownerId: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      academyId = server.siteIdOf(server.academy);
      studioId = server.siteIdOf(server.studio);
      studentId = (await findPersonByEmail(server.store.db, DEMO.student.email))?.id ?? '';
      ownerId = (await findPersonByEmail(server.store.db, DEMO.owner.email))?.id ?? '';
      expect([academyId, studioId, studentId, ownerId].every(Boolean)).toBe(true);
      secrets.add(server.config.secret);
    });
    afterAll(() => server?.close());

    const events = (siteId: string): Promise<AuditEntry[]> => listAudit(server.store.db, siteId, 10_000);
    const ofClient = (list: AuditEntry[], clientId: string, kind: string) => list.filter((e) => e.kind === kind && e.clientId === clientId);

    it('records sign_in.succeeded, consent.granted, token.issued, token.refreshed and token.revoked for the site, person and client of a flow', async () => {
      const issued = await authorizeAndExchange(server.academy, ACADEMY_APP, 'student');
      const refreshed = await refresh(server.academy, ACADEMY_APP, issued.refreshToken);
      expect(refreshed.status).toBe(200);
      await revoke(server.academy, ACADEMY_APP, String(refreshed.body.refresh_token));

      const academy = await events(academyId);
      const signIns = academy.filter((e) => e.kind === 'sign_in.succeeded' && e.personId === studentId);
      expect(signIns.length).toBeGreaterThanOrEqual(1);
      for (const kind of ['consent.granted', 'token.issued', 'token.refreshed', 'token.revoked']) {
        const found = ofClient(academy, ACADEMY_APP.clientId, kind);
        expect(found, kind).toHaveLength(1);
        expect(found[0]?.personId, kind).toBe(studentId);
      }
      expect(ofClient(academy, ACADEMY_APP.clientId, 'consent.granted')[0]?.detail.scope).toBe('openid profile email account:read');
      expect(ofClient(academy, ACADEMY_APP.clientId, 'token.issued')[0]?.detail.grant).toBe('authorization_code');
      // Newest first, in the order they happened.
      const order = ['token.revoked', 'token.refreshed', 'token.issued', 'consent.granted'].map((kind) =>
        academy.findIndex((e) => e.kind === kind && e.clientId === ACADEMY_APP.clientId),
      );
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      for (const e of academy) expect(typeof e.at).toBe('number');

      // None of it is written to the other site's log.
      const studio = await events(studioId);
      expect(studio.filter((e) => e.clientId === ACADEMY_APP.clientId)).toEqual([]);
      expect(studio.filter((e) => e.personId === studentId)).toEqual([]);
    });

    it('records a flow at Demo Studio in Demo Studio’s log only', async () => {
      const issued = await authorizeAndExchange(server.studio, STUDIO_APP, 'student');
      await revoke(server.studio, STUDIO_APP, issued.accessToken);
      const studio = await events(studioId);
      expect(studio.some((e) => e.kind === 'sign_in.succeeded' && e.personId === studentId)).toBe(true);
      expect(ofClient(studio, STUDIO_APP.clientId, 'token.issued')[0]?.personId).toBe(studentId);
      const revoked = ofClient(studio, STUDIO_APP.clientId, 'token.revoked');
      expect(revoked).toHaveLength(1);
      expect(revoked[0]?.detail.token_type).toBe('access_token');
      const academy = await events(academyId);
      expect(academy.filter((e) => e.clientId === STUDIO_APP.clientId)).toEqual([]);
    });

    it('records sign_in.failed at the site for a wrong password', async () => {
      const wrong = `wrong-${randomBytes(6).toString('hex')}`;
      secrets.add(wrong);
      const before = (await events(academyId)).filter((e) => e.kind === 'sign_in.failed').length;
      const lecturer = person('lecturer');
      const verifier = randomBytes(32).toString('base64url');
      const url = authorizationUrl(server.academy, ACADEMY_APP, createHash('sha256').update(verifier).digest('base64url'), 'openid');
      const page = await lecturer.request(url);
      const answer = await lecturer.request(`${server.academy}/oauth/sign-in`, {
        form: { ...hiddenFields(page.html), email: DEMO.lecturer.email, password: wrong },
      });
      expect(answer.status).toBe(401);
      const failed = (await events(academyId)).filter((e) => e.kind === 'sign_in.failed');
      expect(failed).toHaveLength(before + 1);
      expect(JSON.stringify(failed[0]?.detail)).not.toContain(wrong);
      expect((await events(studioId)).filter((e) => e.kind === 'sign_in.failed')).toEqual([]);
    });

    it('records consent.denied when the person denies', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const callback = await person('owner').authorize(
        authorizationUrl(server.academy, ACADEMY_WEB, createHash('sha256').update(verifier).digest('base64url'), 'openid'),
        'deny',
      );
      expect(callback.searchParams.get('error')).toBe('access_denied');
      const denied = ofClient(await events(academyId), ACADEMY_WEB.clientId, 'consent.denied');
      expect(denied).toHaveLength(1);
      expect(denied[0]?.personId).toBe(ownerId);
    });

    it('records code.replay_detected when a code is used twice', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const callback = await person('owner').authorize(authorizationUrl(server.academy, ACADEMY_WEB, challenge, 'openid profile'));
      const code = String(callback.searchParams.get('code'));
      secrets.add(code);
      const form = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: ACADEMY_WEB.redirectUri,
        code_verifier: verifier,
        resource: server.academy,
        ...auth(ACADEMY_WEB),
      };
      const first = await post(`${server.academy}/api/oauth/token`, form);
      expect(first.status).toBe(200);
      for (const field of ['access_token', 'refresh_token', 'id_token']) secrets.add(String(first.body[field]));
      const second = await post(`${server.academy}/api/oauth/token`, form);
      expect(second.body.error).toBe('invalid_grant');
      const replays = ofClient(await events(academyId), ACADEMY_WEB.clientId, 'code.replay_detected');
      expect(replays).toHaveLength(1);
      expect(replays[0]?.personId).toBe(ownerId);
    });

    it('records refresh.reuse_detected when a rotated refresh token comes back after the grace window', async () => {
      const issued = await authorizeAndExchange(server.academy, ACADEMY_WEB, 'owner');
      expect((await refresh(server.academy, ACADEMY_WEB, issued.refreshToken)).status).toBe(200);
      server.clock.advance((server.config.platform.lifetimes.refresh_grace + 1) * 1000);
      const reuse = await refresh(server.academy, ACADEMY_WEB, issued.refreshToken);
      expect(reuse.body.error).toBe('invalid_grant');
      const detected = ofClient(await events(academyId), ACADEMY_WEB.clientId, 'refresh.reuse_detected');
      expect(detected).toHaveLength(1);
      expect(detected[0]?.personId).toBe(ownerId);
    });

    it('never holds a token, code, secret or password in any audit row', async () => {
      // One more confidential flow so a client secret has passed through every endpoint.
      const issued = await authorizeAndExchange(server.academy, ACADEMY_WEB, 'owner');
      const refreshed = await refresh(server.academy, ACADEMY_WEB, issued.refreshToken);
      await revoke(server.academy, ACADEMY_WEB, String(refreshed.body.access_token));
      await revoke(server.academy, ACADEMY_WEB, String(refreshed.body.refresh_token));

      const rows = await server.store.db.selectFrom('audit_events').selectAll().execute();
      expect(rows.length).toBeGreaterThan(10);
      const kinds = new Set(rows.map((r) => r.kind));
      for (const kind of ['sign_in.succeeded', 'sign_in.failed', 'consent.granted', 'token.issued', 'token.refreshed', 'token.revoked']) {
        expect(kinds, kind).toContain(kind);
      }
      for (const value of [...Object.values(DEMO).map((d) => d.password), ...secrets]) expect(value.length).toBeGreaterThan(8);
      const everything = rows.map((r) => JSON.stringify(r));
      for (const row of everything) {
        for (const value of [...Object.values(DEMO).map((d) => d.password), ...secrets]) {
          expect(row.includes(value), `an audit row holds a credential: ${row}`).toBe(false);
        }
        // Tokens are recognisable by their prefixes; no fragment of one belongs in the log.
        expect(row).not.toMatch(/sg[acr]_[A-Za-z0-9_-]{8,}/);
        expect(row).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
      }
      for (const row of rows) {
        const detail = JSON.parse(row.detail) as Json;
        for (const key of Object.keys(detail)) expect(key).not.toMatch(/password|secret|token$|^code$|verifier/i);
      }
    });
  });
}
