// RFC 7636 at the authorization endpoint (SPEC 4.2, 5.1; RFC 9700 2.1.1): a code_challenge is
// required, only with S256, and must be the 43-character base64url SHA-256 of a verifier. Every refusal
// is an `invalid_request` sent back to the redirect URI with `state` and `iss`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { authorizationUrl, CHALLENGE, expectCodeAt, expectErrorRedirect, isSignInForm, s256 } from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`RFC 7636 PKCE at the authorization endpoint (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const refused = async (params: Record<string, string | string[] | null>) => {
      const url = authorizationUrl(server.academy, 'academy-member-app', params);
      return expectErrorRedirect(await person('student').request(url), url, 'invalid_request');
    };

    it('refuses a request without code_challenge with invalid_request on the redirect', async () => {
      const params = await refused({ code_challenge: null });
      expect(params.get('error_description')).toContain('code_challenge');
    });

    it('refuses a request without code_challenge even when the method is given', async () => {
      await refused({ code_challenge: null, code_challenge_method: 'S256' });
    });

    it('refuses code_challenge_method=plain with invalid_request on the redirect', async () => {
      const params = await refused({ code_challenge_method: 'plain' });
      expect(params.get('error_description')).toContain('S256');
    });

    it('refuses a missing code_challenge_method (which would mean plain, RFC 7636 4.3) with invalid_request', async () => {
      await refused({ code_challenge_method: null });
    });

    it('refuses an unknown code_challenge_method with invalid_request', async () => {
      await refused({ code_challenge_method: 'S512' });
      await refused({ code_challenge_method: 's256' });
    });

    it('refuses a code_challenge shorter than 43 characters with invalid_request', async () => {
      await refused({ code_challenge: CHALLENGE.slice(0, 42) });
    });

    it('refuses a code_challenge longer than 43 characters with invalid_request', async () => {
      await refused({ code_challenge: `${CHALLENGE}A` });
    });

    it('refuses a padded code_challenge (base64url has no padding) with invalid_request', async () => {
      await refused({ code_challenge: `${CHALLENGE.slice(0, 42)}=` });
    });

    it('refuses a code_challenge in standard base64 (+ and /) with invalid_request', async () => {
      await refused({ code_challenge: `+/${CHALLENGE.slice(2)}` });
    });

    it('refuses a plain verifier sent as the challenge (too long for S256) with invalid_request', async () => {
      await refused({ code_challenge: 'a'.repeat(64) });
    });

    it('refuses a repeated code_challenge with invalid_request', async () => {
      await refused({ code_challenge: [CHALLENGE, CHALLENGE] });
    });

    it('refuses a repeated code_challenge_method with invalid_request', async () => {
      await refused({ code_challenge_method: ['S256', 'S256'] });
    });

    it('accepts an S256 challenge of 43 base64url characters', async () => {
      const step = await person('student').request(
        authorizationUrl(server.academy, 'academy-member-app', { code_challenge: s256('x'.repeat(43)) }),
      );
      expect(isSignInForm(step)).toBe(true);
    });

    it('binds the S256 challenge to the code it issues', async () => {
      const challenge = s256('the-verifier-of-this-test-is-long-enough-to-count');
      const url = authorizationUrl(server.academy, 'academy-member-app', { code_challenge: challenge });
      const code = expectCodeAt(await person('student').authorize(url), url);
      const row = await server.store.db
        .selectFrom('authorization_codes')
        .select('code_challenge')
        .where('code_hash', '=', hashToken(code))
        .executeTakeFirstOrThrow();
      expect(row.code_challenge).toBe(challenge);
    });
  });
}
