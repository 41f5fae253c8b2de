// CONTRACT 4 consent and OIDC Core 3.1.2.1 `prompt` over real HTTP. The consent page names the client
// and the scopes in plain words and has one form with Allow and Deny; consent is remembered per person,
// client and scopes, so the same or narrower scopes skip the page, wider ones and `prompt=consent` ask
// again. `prompt=none` never shows a page (`login_required`, `consent_required`), `prompt=login` shows
// the sign-in form even to a signed-in person and then continues.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import {
  authorizationUrl,
  elements,
  expectCodeAt,
  expectErrorPage,
  expectErrorRedirect,
  follow,
  isConsentPage,
  isSignInForm,
  signInThrough,
  submitDecision,
  submitSignIn,
  tags,
} from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { hiddenFields, type Person, person } from '../helpers/person.js';

type Who = 'owner' | 'student' | 'lecturer';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`CONTRACT 4 consent (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());
    // Every test starts with nobody having allowed anything.
    beforeEach(async () => {
      await server.store.db.deleteFrom('consents').execute();
    });

    const app = (params: Record<string, string | null> = {}) => authorizationUrl(server.academy, 'academy-member-app', params);

    /** Signs in through `url` and returns the page that follows (the consent page, or a redirect). */
    const signedInAt = async (who: Who, url: string): Promise<{ p: Person; step: Awaited<ReturnType<Person['request']>> }> => {
      const p = person(who);
      const step = await follow(p, server.academy, await signInThrough(p, url));
      return { p, step };
    };

    it('shows the client name, the scopes in plain words and one form with two submit buttons decision=allow/deny', async () => {
      const scopes = ['openid', 'profile', 'email', 'account:read', 'account:write'];
      const { step } = await signedInAt('student', app({ scope: scopes.join(' ') }));
      expect(isConsentPage(step)).toBe(true);
      expect(step.html).toContain('Academy Member App');
      for (const scope of scopes) {
        const words = SCOPE_DESCRIPTIONS[scope] as string;
        expect(words, scope).toMatch(/^[A-Z][a-z]+ /);
        expect(step.html, scope).toContain(words);
      }
      const forms = tags(step.html, 'form');
      expect(forms).toHaveLength(1);
      expect(forms[0]?.method?.toLowerCase()).toBe('post');
      const buttons = elements(step.html, 'button').filter((b) => (b.attrs.type ?? 'submit') === 'submit');
      expect(buttons.map((b) => [b.attrs.name, b.attrs.value, b.text])).toEqual([
        ['decision', 'allow', 'Allow'],
        ['decision', 'deny', 'Deny'],
      ]);
      expect(hiddenFields(step.html).csrf_token).toBeTruthy();
    });

    it('sends Deny back as access_denied with state and iss, and remembers nothing', async () => {
      const url = app();
      const { p, step } = await signedInAt('student', url);
      expect(isConsentPage(step)).toBe(true);
      expectErrorRedirect(await submitDecision(p, server.academy, step, 'deny'), url, 'access_denied');
      expect(await server.store.db.selectFrom('consents').selectAll().execute()).toEqual([]);
      expect(isConsentPage(await p.request(app()))).toBe(true);
    });

    it('sends Allow back as a code with state and iss', async () => {
      const url = app();
      const { p, step } = await signedInAt('student', url);
      const answer = await submitDecision(p, server.academy, step, 'allow');
      expect([302, 303]).toContain(answer.status);
      expectCodeAt(answer.location, url);
    });

    it('skips the consent page on a second authorization with the same scopes', async () => {
      const { p, step } = await signedInAt('student', app({ scope: 'openid account:read' }));
      await submitDecision(p, server.academy, step, 'allow');
      const again = app({ scope: 'account:read openid' });
      expectCodeAt((await p.request(again)).location, again);
    });

    it('skips the consent page for narrower scopes than were allowed', async () => {
      const { p, step } = await signedInAt('student', app({ scope: 'openid profile email account:read' }));
      await submitDecision(p, server.academy, step, 'allow');
      const narrower = app({ scope: 'account:read' });
      expectCodeAt((await p.request(narrower)).location, narrower);
    });

    it('asks again for wider scopes, naming the new ones, and then remembers the union', async () => {
      const { p, step } = await signedInAt('student', app({ scope: 'openid account:read' }));
      await submitDecision(p, server.academy, step, 'allow');
      const wider = app({ scope: 'openid account:read account:write' });
      const page = await p.request(wider);
      expect(isConsentPage(page)).toBe(true);
      expect(page.html).toContain('account:write');
      expectCodeAt((await submitDecision(p, server.academy, page, 'allow')).location, wider);
      const narrowerThanUnion = app({ scope: 'account:write openid' });
      expectCodeAt((await p.request(narrowerThanUnion)).location, narrowerThanUnion);
    });

    it('asks again with prompt=consent although the scopes were allowed', async () => {
      const { p, step } = await signedInAt('student', app());
      await submitDecision(p, server.academy, step, 'allow');
      const url = app({ prompt: 'consent' });
      const page = await p.request(url);
      expect(isConsentPage(page)).toBe(true);
      expectCodeAt((await submitDecision(p, server.academy, page, 'allow')).location, url);
    });

    it('remembers consent per client: allowing academy-member-app does not allow academy-member-web', async () => {
      const { p, step } = await signedInAt('student', app());
      await submitDecision(p, server.academy, step, 'allow');
      const page = await p.request(authorizationUrl(server.academy, 'academy-member-web'));
      expect(isConsentPage(page)).toBe(true);
      expect(page.html).toContain('Academy Member Web');
    });

    it('remembers consent per site: demo-vendor allowed at Demo Academy still asks at Demo Studio', async () => {
      const owner = person('owner');
      await owner.authorize(authorizationUrl(server.academy, 'demo-vendor'));
      const again = authorizationUrl(server.academy, 'demo-vendor');
      expectCodeAt((await owner.request(again)).location, again);
      const atStudio = await follow(owner, server.studio, await signInThrough(owner, authorizationUrl(server.studio, 'demo-vendor')));
      expect(isConsentPage(atStudio)).toBe(true);
    });

    it('remembers consent per person: another person is asked', async () => {
      const first = await signedInAt('student', app());
      await submitDecision(first.p, server.academy, first.step, 'allow');
      const second = await signedInAt('lecturer', app());
      expect(isConsentPage(second.step)).toBe(true);
    });

    it('refuses a decision without a valid CSRF token (403) and issues no code', async () => {
      const { p, step } = await signedInAt('student', app());
      const fields = hiddenFields(step.html);
      const forged = await p.request(`${server.academy}/oauth/authorize/decision`, {
        form: { request: fields.request ?? '', decision: 'allow' },
      });
      expect(forged.status).toBe(403);
      expect(forged.location).toBeNull();
      const wrong = await p.request(`${server.academy}/oauth/authorize/decision`, {
        form: { ...fields, csrf_token: `${fields.csrf_token}x`, decision: 'allow' },
      });
      expect(wrong.status).toBe(403);
      expect(await server.store.db.selectFrom('consents').selectAll().execute()).toEqual([]);
    });

    it('validates the request again when the form comes back: an altered redirect_uri gets the 400 page', async () => {
      const { p, step } = await signedInAt('student', app());
      const fields = hiddenFields(step.html);
      const altered = (fields.request ?? '').replace(
        /redirect_uri=[^&]+/,
        `redirect_uri=${encodeURIComponent('https://attacker.example/cb')}`,
      );
      expect(altered).not.toBe(fields.request);
      expectErrorPage(
        await p.request(`${server.academy}/oauth/authorize/decision`, { form: { ...fields, request: altered, decision: 'allow' } }),
      );
    });
  });

  describe.skipIf(skipDialect(dialect))(`OIDC prompt (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());
    beforeEach(async () => {
      await server.store.db.deleteFrom('consents').execute();
    });

    const app = (params: Record<string, string | null> = {}) => authorizationUrl(server.academy, 'academy-member-app', params);

    it('answers prompt=none without a session with login_required on the redirect', async () => {
      const url = app({ prompt: 'none' });
      expectErrorRedirect(await person('student').request(url), url, 'login_required');
    });

    it('answers prompt=none with a session but no consent with consent_required on the redirect', async () => {
      const p = person('student');
      expect((await signInThrough(p, app())).status).toBe(303);
      const url = app({ prompt: 'none' });
      expectErrorRedirect(await p.request(url), url, 'consent_required');
    });

    it('answers prompt=none with a session and consent with a code', async () => {
      const p = person('student');
      await p.authorize(app());
      const url = app({ prompt: 'none' });
      expectCodeAt((await p.request(url)).location, url);
    });

    it('answers prompt=none with consent for fewer scopes than asked with consent_required', async () => {
      const p = person('student');
      await p.authorize(app({ scope: 'openid' }));
      const url = app({ prompt: 'none', scope: 'openid account:read' });
      expectErrorRedirect(await p.request(url), url, 'consent_required');
    });

    it('shows the sign-in form again with prompt=login to a signed-in person, then continues to the code', async () => {
      const p = person('student');
      const first = app();
      const firstCode = expectCodeAt(await p.authorize(first), first);
      server.clock.advance(5_000);
      const url = app({ prompt: 'login' });
      const form = await p.request(url);
      expect(isSignInForm(form)).toBe(true);
      const done = await follow(p, server.academy, await submitSignIn(p, server.academy, form));
      expect([302, 303]).toContain(done.status);
      const code = expectCodeAt(done.location, url);
      const authTimes = await server.store.db
        .selectFrom('authorization_codes')
        .select(['code_hash', 'auth_time'])
        .where('code_hash', 'in', [hashToken(firstCode), hashToken(code)])
        .execute();
      const byHash = new Map(authTimes.map((r) => [r.code_hash, Number(r.auth_time)]));
      expect(byHash.get(hashToken(code))).toBeGreaterThan(byHash.get(hashToken(firstCode)) as number);
    });

    it('with prompt="login consent" shows the sign-in form, then the consent page', async () => {
      const p = person('student');
      await p.authorize(app());
      const url = app({ prompt: 'login consent' });
      const afterSignIn = await follow(p, server.academy, await signInThrough(p, url));
      expect(isConsentPage(afterSignIn)).toBe(true);
      expectCodeAt((await submitDecision(p, server.academy, afterSignIn, 'allow')).location, url);
    });

    it('refuses an unknown prompt value with invalid_request on the redirect', async () => {
      const url = app({ prompt: 'sometimes' });
      expectErrorRedirect(await person('student').request(url), url, 'invalid_request');
    });

    it('refuses prompt=none combined with another value with invalid_request on the redirect', async () => {
      for (const prompt of ['none login', 'none consent', 'consent none']) {
        const url = app({ prompt });
        expectErrorRedirect(await person('student').request(url), url, 'invalid_request');
      }
    });

    it('refuses a repeated prompt with invalid_request on the redirect', async () => {
      const url = authorizationUrl(server.academy, 'academy-member-app', { prompt: ['login', 'consent'] });
      expectErrorRedirect(await person('student').request(url), url, 'invalid_request');
    });
  });
}
