// OIDC Core 3.1.2.1 over real HTTP: the authorization endpoint also takes POST (form-encoded, the same
// request as GET); `max_age` makes an older sign-in happen again and the ID token carries `auth_time`;
// `login_hint` fills the e-mail field; `id_token_hint` must be an ID token this site issued to this client,
// and a signed-in person other than the one it names is `login_required`.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationUrl,
  expectCodeAt,
  expectErrorPage,
  expectErrorRedirect,
  follow,
  isSignInForm,
  signInThrough,
  submitDecision,
  submitSignIn,
} from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { type Person, person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';

const CLIENT = 'academy-member-app';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`OIDC authorization request extras (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    const url = (params: Record<string, string | null> = {}) => authorizationUrl(server.academy, CLIENT, params);

    /** A person signed in at the academy who has allowed the app once. */
    const signedIn = async (who: 'student' | 'lecturer'): Promise<Person> => {
      const p = person(who);
      const consent = await follow(p, server.academy, await signInThrough(p, url()));
      const done = consent.status === 200 ? await submitDecision(p, server.academy, consent, 'allow') : consent;
      expect([302, 303]).toContain(done.status);
      return p;
    };

    /** POSTs an authorization request as a form, the way OIDC Core 3.1.2.1 allows. */
    const post = (p: Person, requestUrl: string) => {
      const form = Object.fromEntries(new URL(requestUrl).searchParams);
      return p.request(`${server.academy}/oauth/authorize`, { form });
    };

    it('takes a POSTed authorization request exactly as a GET one: sign-in form first, then a code', async () => {
      const p = person('student');
      const requestUrl = url();
      const form = await post(p, requestUrl);
      expect(isSignInForm(form)).toBe(true);
      const next = await follow(p, server.academy, await submitSignIn(p, server.academy, form));
      const answer = next.status === 200 ? await submitDecision(p, server.academy, next, 'allow') : next;
      expectCodeAt(answer.location, requestUrl);
      // Signed in and allowed: a second POST goes straight back with a code.
      const again = url();
      expectCodeAt((await post(p, again)).location, again);
    });

    it('validates a POSTed request with the same rules: a bad redirect_uri is a page, a bad scope a redirect', async () => {
      const p = person('student');
      expectErrorPage(await post(p, url({ redirect_uri: 'https://evil.example/cb' })));
      const badScope = url({ scope: 'courses:write' });
      expectErrorRedirect(await post(p, badScope), badScope, 'invalid_scope');
    });

    it('asks a person whose sign-in is older than max_age to sign in again, then issues the code', async () => {
      const p = await signedIn('student');
      const fresh = url({ max_age: '3600' });
      expectCodeAt((await p.request(fresh)).location, fresh);
      server.clock.advance(120_000);
      const old = url({ max_age: '60' });
      const form = await p.request(old);
      expect(isSignInForm(form)).toBe(true);
      const answer = await follow(p, server.academy, await submitSignIn(p, server.academy, form));
      expectCodeAt(answer.location, old);
    });

    it('answers prompt=none with max_age exceeded by login_required, and max_age=0 signs in once without looping', async () => {
      const p = await signedIn('student');
      server.clock.advance(5_000);
      const none = url({ max_age: '1', prompt: 'none' });
      expectErrorRedirect(await p.request(none), none, 'login_required');
      const zero = url({ max_age: '0' });
      const form = await p.request(zero);
      expect(isSignInForm(form)).toBe(true);
      expectCodeAt((await follow(p, server.academy, await submitSignIn(p, server.academy, form))).location, zero);
    });

    it('refuses a max_age that is not a non-negative integer with invalid_request', async () => {
      const p = person('student');
      for (const value of ['-1', '1.5', 'soon']) {
        const bad = url({ max_age: value });
        expectErrorRedirect(await p.request(bad), bad, 'invalid_request');
      }
    });

    it('puts auth_time, the moment of the sign-in, into the ID token', async () => {
      const before = Math.floor(server.clock.now() / 1000);
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid', who: person('lecturer'), prompt: 'login' });
      const claims = decodeJwt(tokens.id_token as string);
      expect(claims.auth_time).toBeGreaterThanOrEqual(before);
      expect(claims.auth_time).toBeLessThanOrEqual(Math.floor(server.clock.now() / 1000));
    });

    it('fills the sign-in e-mail field from login_hint, escaped', async () => {
      const p = person('student');
      const form = await p.request(url({ login_hint: 'student@demo.test' }));
      expect(form.html).toContain('value="student@demo.test"');
      const hostile = await p.request(url({ login_hint: '"><script>alert(1)</script>' }));
      expect(hostile.html).not.toContain('<script>alert(1)</script>');
      const long = url({ login_hint: 'x'.repeat(321) });
      expectErrorRedirect(await p.request(long), long, 'invalid_request');
    });

    it('accepts an id_token_hint naming the signed-in person, even once expired, and answers a different person with login_required', async () => {
      const student = await signedIn('student');
      const tokens = await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid', who: student });
      const hint = tokens.id_token as string;
      const same = url({ id_token_hint: hint, prompt: 'none' });
      expectCodeAt((await student.request(same)).location, same);
      server.clock.advance(24 * 3600 * 1000);
      const later = url({ id_token_hint: hint });
      const answer = await student.request(later);
      // A day later the session may have ended; either way the hint itself is accepted.
      if (answer.status === 200) expect(isSignInForm(answer)).toBe(true);
      else expectCodeAt(answer.location, later);

      const lecturer = await signedIn('lecturer');
      const other = url({ id_token_hint: hint });
      expectErrorRedirect(await lecturer.request(other), other, 'login_required');
    });

    it('refuses an id_token_hint that is forged, of another client or of another site with invalid_request', async () => {
      const p = await signedIn('student');
      const mine = (await getTokens(server, DEMO_CLIENTS.academyApp, { scope: 'openid', who: p })).id_token as string;
      const [header, payload] = mine.split('.') as [string, string];
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(mine), sub: 'someone-else' })).toString('base64url')}.${mine.split('.')[2]}`;
      const otherClient = (await getTokens(server, DEMO_CLIENTS.academyWeb, { scope: 'openid', who: p })).id_token as string;
      const otherSite = (await getTokens(server, DEMO_CLIENTS.studioApp, { scope: 'openid', who: person('student') })).id_token as string;
      for (const hint of [tampered, otherClient, otherSite, 'not-a-jwt', `${header}.${payload}.`]) {
        const bad = url({ id_token_hint: hint });
        expectErrorRedirect(await p.request(bad), bad, 'invalid_request');
      }
    });
  });
}
