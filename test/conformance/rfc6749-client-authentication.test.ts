// RFC 6749 2.3.1 and 5.2 at the token, revocation and introspection endpoints: confidential clients may
// authenticate with HTTP Basic (client_secret_basic, id and secret each form-urlencoded first) or with the
// form body (client_secret_post), never both at once; a failed Basic authentication answers 401 with a
// Basic challenge. Both are advertised in discovery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';
import { DEMO_CLIENTS, expectTokens, type FormResponse, getCode, getTokens, postForm } from '../helpers/token-flow.js';

const { academyWeb, academyApp } = DEMO_CLIENTS;

function basic(id: string, secret: string, encode = true): string {
  const e = (v: string) => (encode ? encodeURIComponent(v).replace(/%20/g, '+') : v);
  return `Basic ${Buffer.from(`${e(id)}:${e(secret)}`).toString('base64')}`;
}

function expectBasicFailure(res: FormResponse): void {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe('invalid_client');
  expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="http:\/\/localhost:\d+", charset="UTF-8"$/);
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 6749 2.3.1 client_secret_basic (${dialect})`, () => {
    let server: DemoServer;
    const student = person('student');
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const url = (path: string) => `${server.academy}${path}`;

    it('exchanges a code with HTTP Basic credentials, and client_id in the body may repeat the same id', async () => {
      for (const withId of [false, true]) {
        const issued = await getCode(server, academyWeb, { who: student });
        const res = await postForm(
          url('/api/oauth/token'),
          {
            grant_type: 'authorization_code',
            code: issued.code,
            redirect_uri: academyWeb.redirectUri,
            code_verifier: issued.verifier,
            resource: server.academy,
            client_id: withId ? academyWeb.clientId : undefined,
          },
          { authorization: basic(academyWeb.clientId, academyWeb.secret) },
        );
        expectTokens(res);
      }
    });

    it('refreshes, introspects and revokes with HTTP Basic', async () => {
      const tokens = await getTokens(server, academyWeb, { who: student });
      const auth = { authorization: basic(academyWeb.clientId, academyWeb.secret) };
      const refreshed = expectTokens(
        await postForm(url('/api/oauth/token'), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth),
      );
      const active = await postForm(url('/api/oauth/introspect'), { token: refreshed.access_token }, auth);
      expect(active.body).toMatchObject({ active: true, client_id: academyWeb.clientId });
      expect((await postForm(url('/api/oauth/revoke'), { token: refreshed.refresh_token }, auth)).status).toBe(200);
      expect((await postForm(url('/api/oauth/introspect'), { token: refreshed.access_token }, auth)).body).toEqual({ active: false });
    });

    it('answers a wrong secret, an unknown client or a malformed header with 401 invalid_client and a Basic challenge', async () => {
      for (const authorization of [
        basic(academyWeb.clientId, 'wrong'),
        basic('no-such-client', 'x'),
        'Basic !!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from('%zz:secret').toString('base64')}`,
      ]) {
        expectBasicFailure(await postForm(url('/api/oauth/introspect'), { token: 'sga_x' }, { authorization }));
      }
    });

    it('refuses Basic for a public client, which has no secret', async () => {
      expectBasicFailure(await postForm(url('/api/oauth/revoke'), { token: 'sga_x' }, { authorization: basic(academyApp.clientId, '') }));
    });

    it('refuses two authentication methods at once, or two different client ids, with invalid_request', async () => {
      const auth = { authorization: basic(academyWeb.clientId, academyWeb.secret) };
      for (const extra of [{ client_secret: academyWeb.secret }, { client_id: academyApp.clientId }]) {
        const res = await postForm(url('/api/oauth/introspect'), { token: 'sga_x', ...extra }, auth);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_request');
      }
    });

    it('advertises client_secret_basic beside client_secret_post at every endpoint that authenticates clients', async () => {
      const meta = (await (await fetch(url('/.well-known/oauth-authorization-server'))).json()) as Record<string, string[]>;
      for (const key of ['token_endpoint_auth_methods_supported', 'revocation_endpoint_auth_methods_supported']) {
        expect(meta[key]).toEqual(['none', 'client_secret_basic', 'client_secret_post']);
      }
      expect(meta.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
    });
  });
}
