// CONTRACT 4 and issue 2 section 2 over real HTTP: the sign-in form, wrong passwords, CSRF on every
// form, the lockout (429 with Retry-After), the `sg_session` cookie (HttpOnly, SameSite=Lax, per site),
// sign-out, no open redirect after sign-in, and the headers every page carries (CSP with
// `frame-ancestors 'none'`, X-Frame-Options, no-store; no `form-action` on the consent page, INTEROP
// "Browsers").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import {
  authorizationUrl,
  elements,
  follow,
  hasSignInForm,
  isConsentPage,
  isSignInForm,
  setCookie,
  signInThrough,
  submitSignIn,
  tags,
} from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { hiddenFields, Person, person, type Step } from '../helpers/person.js';

const LOCKOUT_SECONDS = 120;
const MAX_FAILURES = 3;

function csp(step: Step): string[] {
  return (step.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
}

function expectPageHeaders(step: Step, what: string): void {
  expect(step.headers.get('content-type'), what).toMatch(/^text\/html/);
  expect(csp(step), what).toContain("frame-ancestors 'none'");
  expect(step.headers.get('x-frame-options'), what).toBe('DENY');
  expect(step.headers.get('cache-control'), what).toContain('no-store');
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`pages: sign-in, sessions and headers (${dialect})`, () => {
    // One server per describe below: each stays well inside the sign-in route's per-address rate limit.
    let server: DemoServer;
    const useServer = () => {
      beforeAll(async () => {
        server = await startDemoServer(dialect);
      });
      afterAll(() => server?.close());
    };

    const academyUrl = (params: Record<string, string | null> = {}) => authorizationUrl(server.academy, 'academy-member-app', params);
    const sessionCount = async () =>
      Number(
        (
          await server.store.db
            .selectFrom('sessions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** The sign-in form of an authorization request, in a fresh browser. */
    const signInForm = async (p: Person = person('student')) => {
      const step = await p.request(academyUrl());
      expect(isSignInForm(step)).toBe(true);
      return step;
    };

    describe('the sign-in form', () => {
      useServer();

      it('has an email input labelled "Email", a password input labelled "Password", a hidden CSRF field and a "Sign in" button', async () => {
        const step = await signInForm();
        const forms = tags(step.html, 'form');
        expect(forms).toHaveLength(1);
        expect(forms[0]?.method?.toLowerCase()).toBe('post');
        expect(forms[0]?.action).toBe('/oauth/sign-in');
        const inputs = tags(step.html, 'input');
        const labels = elements(step.html, 'label');
        for (const [name, label, type] of [
          ['email', 'Email', 'email'],
          ['password', 'Password', 'password'],
        ] as const) {
          const input = inputs.find((i) => i.name === name);
          expect(input?.type, name).toBe(type);
          const forInput = labels.find((l) => l.attrs.for === input?.id);
          expect(forInput?.text, name).toBe(label);
        }
        expect(hiddenFields(step.html).csrf_token).toMatch(/^\S{16,}$/);
        const buttons = elements(step.html, 'button');
        expect(buttons.map((b) => [b.attrs.type ?? 'submit', b.text])).toEqual([['submit', 'Sign in']]);
      });

      it('carries the authorization request to return to, as a path on this origin', async () => {
        const url = new URL(academyUrl());
        const step = await person('student').request(url.href);
        expect(hiddenFields(step.html).return_to).toBe(url.pathname + url.search);
      });

      it('shows the form again with an error and a 4xx status for a wrong password, keeping the email, and starts no session', async () => {
        const p = person('lecturer');
        const before = await sessionCount();
        const step = await submitSignIn(p, server.academy, await signInForm(p), { email: p.email, password: 'not-the-password' });
        expect(step.status).toBeGreaterThanOrEqual(400);
        expect(step.status).toBeLessThan(500);
        expect(hasSignInForm(step.html)).toBe(true);
        expect(step.html).toMatch(/class="error"/);
        expect(tags(step.html, 'input').find((i) => i.name === 'email')?.value).toBe(p.email);
        expect(setCookie(step.headers, 'sg_session')).toBeUndefined();
        expect(await sessionCount()).toBe(before);
      });

      it('answers an unknown email exactly like a wrong password (same status, same message)', async () => {
        const wrong = await submitSignIn(person('lecturer'), server.academy, await signInForm(), {
          email: 'lecturer@demo.test',
          password: 'not-the-password',
        });
        const unknown = await submitSignIn(person('lecturer'), server.academy, await signInForm(), {
          email: 'nobody@demo.test',
          password: 'not-the-password',
        });
        expect(unknown.status).toBe(wrong.status);
        const message = (s: Step) => elements(s.html, 'p').find((e) => e.attrs.class === 'error')?.text;
        expect(message(unknown)).toBeTruthy();
        expect(message(unknown)).toBe(message(wrong));
      });

      it('escapes what was typed when it shows the form again', async () => {
        const step = await submitSignIn(person('student'), server.academy, await signInForm(), {
          email: '"><script>alert(1)</script>@x.test',
          password: 'whatever',
        });
        expect(step.html).not.toContain('<script>');
        expect(step.html).toContain('&quot;&gt;&lt;script&gt;');
      });

      it('refuses a sign-in without a CSRF token with 403 and starts no session', async () => {
        const p = person('student');
        const fields = hiddenFields((await signInForm(p)).html);
        const before = await sessionCount();
        const step = await p.request(`${server.academy}/oauth/sign-in`, {
          form: { return_to: fields.return_to ?? '', email: p.email, password: p.password },
        });
        expect(step.status).toBe(403);
        expect(step.location).toBeNull();
        expect(setCookie(step.headers, 'sg_session')).toBeUndefined();
        expect(await sessionCount()).toBe(before);
      });

      it('refuses a sign-in with a wrong CSRF token with 403 and starts no session', async () => {
        const p = person('student');
        const fields = hiddenFields((await signInForm(p)).html);
        const before = await sessionCount();
        const step = await p.request(`${server.academy}/oauth/sign-in`, {
          form: { ...fields, csrf_token: `A${(fields.csrf_token ?? '').slice(1)}B`, email: p.email, password: p.password },
        });
        expect(step.status).toBe(403);
        expect(setCookie(step.headers, 'sg_session')).toBeUndefined();
        expect(await sessionCount()).toBe(before);
      });

      it('refuses a CSRF token that was issued to another browser with 403', async () => {
        const attacker = person('student');
        const victim = person('student');
        await signInForm(victim); // the victim's browser holds its own CSRF cookie
        const attackerFields = hiddenFields((await signInForm(attacker)).html);
        const before = await sessionCount();
        const step = await victim.request(`${server.academy}/oauth/sign-in`, {
          form: { ...attackerFields, email: victim.email, password: victim.password },
        });
        expect(step.status).toBe(403);
        expect(await sessionCount()).toBe(before);
      });

      it('signs in with the right password and goes back to the authorization request on this origin', async () => {
        const p = person('student');
        const url = academyUrl();
        const step = await signInThrough(p, url);
        expect(step.status).toBe(303);
        const back = new URL(step.location as string);
        expect(back.origin).toBe(server.academy);
        expect(back.pathname).toBe('/oauth/authorize');
        expect(back.searchParams.get('state')).toBe(new URL(url).searchParams.get('state'));
        expect(isConsentPage(await follow(p, server.academy, step))).toBe(true);
      });
    });

    describe('the session cookie', () => {
      useServer();

      it('is sg_session_<site id>, HttpOnly, SameSite=Lax, Path=/, and not Secure on an http origin', async () => {
        const step = await signInThrough(person('student'), academyUrl());
        const cookie = setCookie(step.headers, 'sg_session');
        expect(cookie).toBeDefined();
        expect(cookie?.has('httponly')).toBe(true);
        expect(cookie?.get('samesite')?.toLowerCase()).toBe('lax');
        expect(cookie?.get('path')).toBe('/');
        expect(cookie?.has('secure')).toBe(false);
        expect(cookie?.has('domain')).toBe(false);
      });

      it('is opaque: the database keeps only its hash', async () => {
        const step = await signInThrough(person('student'), academyUrl());
        const value = setCookie(step.headers, 'sg_session')?.get('value') as string;
        expect(value.length).toBeGreaterThanOrEqual(32);
        const rows = await server.store.db.selectFrom('sessions').select('id_hash').execute();
        expect(rows.some((r) => r.id_hash === value)).toBe(false);
        expect(rows.some((r) => r.id_hash === hashToken(value))).toBe(true);
      });

      it('keeps the CSRF cookie HttpOnly and SameSite=Lax too', async () => {
        const step = await signInForm();
        const cookie = setCookie(step.headers, 'sg_csrf');
        expect(cookie?.has('httponly')).toBe(true);
        expect(cookie?.get('samesite')?.toLowerCase()).toBe('lax');
        expect(cookie?.has('secure')).toBe(false);
      });

      it('signs you in at one site only: the Demo Academy session does not sign you in at Demo Studio', async () => {
        const p = person('student');
        const step = await signInThrough(p, academyUrl());
        const session = setCookie(step.headers, 'sg_session');
        const value = session?.get('value') as string;
        const withCookie = async (url: string) => {
          const res = await fetch(url, { headers: { cookie: `${session?.get('name')}=${value}` }, redirect: 'manual' });
          return { status: res.status, location: res.headers.get('location'), html: await res.text(), headers: res.headers };
        };
        // The cookie works where it was issued...
        expect(isConsentPage(await withCookie(academyUrl()))).toBe(true);
        // ...and is nobody at the other site, even when a browser sends it there.
        expect(isSignInForm(await withCookie(authorizationUrl(server.studio, 'studio-member-app')))).toBe(true);
        expect(isSignInForm(await p.request(authorizationUrl(server.studio, 'studio-member-app')))).toBe(true);
      });
    });

    describe('sign-out', () => {
      useServer();

      it('ends the session with a CSRF-protected POST: the next authorization shows the sign-in form', async () => {
        const p = person('student');
        const signedIn = await signInThrough(p, academyUrl());
        const session = setCookie(signedIn.headers, 'sg_session');
        const value = session?.get('value') as string;
        expect(isConsentPage(await p.request(academyUrl()))).toBe(true);

        const page = await p.request(`${server.academy}/oauth/sign-out`);
        expect(page.status).toBe(200);
        expectPageHeaders(page, 'sign-out page');
        const out = await p.request(`${server.academy}/oauth/sign-out`, { form: hiddenFields(page.html) });
        expect(out.status).toBe(200);
        const cleared = setCookie(out.headers, 'sg_session');
        expect(cleared).toBeDefined();
        expect(cleared?.get('value') === '' || cleared?.get('max-age') === '0' || /1970/.test(cleared?.get('expires') ?? '')).toBe(true);

        expect(isSignInForm(await p.request(academyUrl()))).toBe(true);
        // The old cookie is dead on the server, not only forgotten by the browser.
        const replay = await fetch(academyUrl(), { headers: { cookie: `${session?.get('name')}=${value}` }, redirect: 'manual' });
        expect(isSignInForm({ status: replay.status, location: null, html: await replay.text(), headers: replay.headers })).toBe(true);
        const row = await server.store.db
          .selectFrom('sessions')
          .select('id_hash')
          .where('id_hash', '=', hashToken(value))
          .executeTakeFirst();
        expect(row).toBeUndefined();
      });

      it('refuses a sign-out without a valid CSRF token (403) and keeps the session', async () => {
        const p = person('student');
        await signInThrough(p, academyUrl());
        const missing = await p.request(`${server.academy}/oauth/sign-out`, { form: {} });
        expect(missing.status).toBe(403);
        const wrong = await p.request(`${server.academy}/oauth/sign-out`, { form: { csrf_token: 'forged' } });
        expect(wrong.status).toBe(403);
        expect(isConsentPage(await p.request(academyUrl()))).toBe(true);
      });
    });

    describe('no open redirect after sign-in', () => {
      useServer();

      it('ignores a return_to that is not an authorization URL on this origin', async () => {
        for (const returnTo of [
          'https://attacker.example/oauth/authorize?client_id=x',
          '//attacker.example/oauth/authorize?client_id=x',
          '/\\attacker.example/oauth/authorize?x',
          `${server.academy}/oauth/authorize?client_id=academy-member-app`,
          '/oauth/sign-out',
          'javascript:alert(1)',
        ]) {
          const p = person('student');
          const fields = hiddenFields((await signInForm(p)).html);
          const step = await p.request(`${server.academy}/oauth/sign-in`, {
            form: { ...fields, return_to: returnTo, email: p.email, password: p.password },
          });
          expect(step.location, returnTo).toBeNull();
          expect(step.status, returnTo).toBe(200);
          expect(setCookie(step.headers, 'sg_session'), returnTo).toBeDefined();
        }
      });

      it('drops a foreign return_to from the form it shows again after a wrong password', async () => {
        const p = person('lecturer');
        const fields = hiddenFields((await signInForm(p)).html);
        const step = await p.request(`${server.academy}/oauth/sign-in`, {
          form: { ...fields, return_to: 'https://attacker.example/', email: p.email, password: 'not-the-password' },
        });
        expect(hiddenFields(step.html).return_to).toBe('');
      });
    });

    describe('page headers', () => {
      useServer();

      it("sends CSP with frame-ancestors 'none', X-Frame-Options DENY and no-store on every page", async () => {
        const p = person('student');
        const form = await signInForm(p);
        expectPageHeaders(form, 'sign-in form');
        const wrong = await submitSignIn(p, server.academy, form, { email: 'nobody@demo.test', password: 'x' });
        expectPageHeaders(wrong, 'sign-in form with an error');
        const consent = await follow(p, server.academy, await signInThrough(p, academyUrl()));
        expect(isConsentPage(consent)).toBe(true);
        expectPageHeaders(consent, 'consent page');
        const errorPage = await p.request(
          authorizationUrl(server.academy, 'no-such-client', { redirect_uri: 'http://127.0.0.1/callback' }),
        );
        expect(errorPage.status).toBe(400);
        expectPageHeaders(errorPage, '400 error page');
        expectPageHeaders(await p.request(`${server.academy}/oauth/sign-out`), 'sign-out page');
      });

      it("leaves form-action out of the consent page's CSP but keeps form-action 'self' on the sign-in page", async () => {
        const p = person('student');
        const form = await signInForm(p);
        expect(csp(form)).toContain("form-action 'self'");
        const consent = await follow(p, server.academy, await signInThrough(p, academyUrl()));
        expect(isConsentPage(consent)).toBe(true);
        expect(csp(consent).some((d) => d.startsWith('form-action'))).toBe(false);
        expect(csp(consent)).toContain("frame-ancestors 'none'");
      });

      it('allows no scripts on the pages', async () => {
        const form = await signInForm();
        expect(csp(form)).toContain("default-src 'none'");
        expect(csp(form).some((d) => d.startsWith('script-src'))).toBe(false);
        expect(form.html).not.toMatch(/<script/i);
      });
    });
  });

  describe.skipIf(skipDialect(dialect))(`pages: sign-in submissions per address (${dialect})`, () => {
    const RATE = 3;
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.limits.sign_in_rate_per_minute = RATE;
        },
      });
    });
    afterAll(() => server?.close());

    it('answers the submission after sign_in_rate_per_minute with a 429 page, Retry-After and RateLimit-*, whatever the account', async () => {
      const emails = ['a@demo.test', 'b@demo.test', 'c@demo.test', person('student').email];
      const statuses: number[] = [];
      let last: Step | undefined;
      server.clock.startRateWindow();
      for (const email of emails) {
        const p = new Person(email, 'wrong-password');
        const form = await p.request(authorizationUrl(server.academy, 'academy-member-app'));
        last = await submitSignIn(p, server.academy, form);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      const limited = last as Step;
      expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-limit')).toBe(String(RATE));
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    });
  });

  describe.skipIf(skipDialect(dialect))(`pages: lockout after repeated wrong passwords (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.sign_in.max_failures = MAX_FAILURES;
          p.sign_in.lockout_seconds = LOCKOUT_SECONDS;
        },
      });
    });
    afterAll(() => server?.close());

    const attempt = async (email: string, password: string) => {
      const p = new Person(email, password);
      const form = await p.request(authorizationUrl(server.academy, 'academy-member-app'));
      expect(isSignInForm(form)).toBe(true);
      return submitSignIn(p, server.academy, form);
    };
    const retryAfter = (step: Step) => Number(step.headers.get('retry-after'));

    it('answers 429 with Retry-After at max_failures wrong passwords, refuses the right one while locked, accepts it after the lockout', async () => {
      const { email, password } = person('student');
      for (let i = 1; i < MAX_FAILURES; i++) expect((await attempt(email, 'wrong-password')).status).toBe(401);
      const locked = await attempt(email, 'wrong-password');
      expect(locked.status).toBe(429);
      expect(retryAfter(locked)).toBe(LOCKOUT_SECONDS);
      expect(locked.headers.get('ratelimit-limit')).toBe(String(MAX_FAILURES));
      expect(locked.headers.get('ratelimit-remaining')).toBe('0');
      expect(locked.headers.get('ratelimit-reset')).toBe(String(LOCKOUT_SECONDS));
      expect(hasSignInForm(locked.html)).toBe(true);

      const right = await attempt(email, password);
      expect(right.status).toBe(429);
      expect(retryAfter(right)).toBeGreaterThan(0);
      expect(retryAfter(right)).toBeLessThanOrEqual(LOCKOUT_SECONDS);
      expect(setCookie(right.headers, 'sg_session')).toBeUndefined();

      server.clock.advance(60_000);
      const later = await attempt(email, password);
      expect(later.status).toBe(429);
      expect(retryAfter(later)).toBeLessThanOrEqual(LOCKOUT_SECONDS - 59);

      server.clock.advance((LOCKOUT_SECONDS - 60) * 1000 + 1000);
      const after = await attempt(email, password);
      expect(after.status).toBe(303);
      expect(setCookie(after.headers, 'sg_session')).toBeDefined();
    });

    it('locks an unknown email the same way, so the answer does not tell who has an account', async () => {
      for (let i = 1; i < MAX_FAILURES; i++) expect((await attempt('nobody@demo.test', 'wrong-password')).status).toBe(401);
      const locked = await attempt('nobody@demo.test', 'wrong-password');
      expect(locked.status).toBe(429);
      expect(retryAfter(locked)).toBe(LOCKOUT_SECONDS);
    });

    it('locks the account that failed, not another one', async () => {
      const { email } = person('lecturer');
      for (let i = 0; i < MAX_FAILURES; i++) await attempt(email, 'wrong-password');
      expect((await attempt(email, person('lecturer').password)).status).toBe(429);
      expect((await attempt(person('owner').email, person('owner').password)).status).toBe(303);
    });

    it('starts the count again after a successful sign-in', async () => {
      const { email, password } = person('visitor');
      for (let i = 1; i < MAX_FAILURES; i++) expect((await attempt(email, 'wrong-password')).status).toBe(401);
      expect((await attempt(email, password)).status).toBe(303);
      for (let i = 1; i < MAX_FAILURES; i++) expect((await attempt(email, 'wrong-password')).status).toBe(401);
    });
  });
}
