// The authorization endpoint and the pages a person drives (SPEC 4.2, CONTRACT 4): sign in, consent,
// sign out. The request is validated again whenever a form comes back, so hidden fields carry nothing
// that is trusted.
import { parse as parseQuery } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { recordAudit } from '../../audit/audit-log.js';
import { findPersonById } from '../../people/people.repository.js';
import { createSession, deleteSession } from '../../people/sessions.repository.js';
import { signIn } from '../../people/sign-in.js';
import type { AuthorizationRequest } from '../../oauth/authorize/authorization-request.js';
import { assertMayApprove, nextStep, rememberConsent } from '../../oauth/authorize/interaction.js';
import { issueAuthorizationCode, redirectWith } from '../../oauth/authorize/issue-code.js';
import { type AuthorizePipelineDeps, validateAuthorizationRequest } from '../../oauth/authorize/pipeline.js';
import { RedirectableAuthorizationError } from '../../oauth/errors.js';
import type { RawParams } from '../../oauth/parameters.js';
import { PATHS } from '../../oauth/discovery.js';
import type { Services } from '../../services.js';
import type { Site } from '../../sites/site.js';
import { rateLimitHeaders } from '../../throttle/throttle.js';
import { addressBudget } from '../address-budget.js';
import { type CsrfProtection, createCsrfProtection } from '../csrf.js';
import { consentPage } from '../pages/consent-page.js';
import { html } from '../pages/html.js';
import { layout } from '../pages/layout.js';
import { messagePage, noticePage } from '../pages/message-page.js';
import { siteTheme } from '../pages/site-theme.js';
import { sendPage } from '../security-headers.js';
import { safeReturnTo, sendSignInForm } from '../sign-in-form.js';
import { clearSessionCookie, currentSession, sessionCookieValue, setSessionCookie } from '../session-cookie.js';

const param = z.union([z.string(), z.array(z.string())]).optional();
const authorizeQuery = z.looseObject({
  response_type: param.describe('code'),
  client_id: param.describe('a registered client_id or the https URL of a Client ID Metadata Document'),
  redirect_uri: param,
  scope: param.describe('space-separated scopes'),
  resource: param.describe('the origin of this site (RFC 8707)'),
  code_challenge: param.describe('PKCE S256 challenge'),
  code_challenge_method: param.describe('S256'),
  state: param,
  nonce: param,
  prompt: param.describe('none, login or consent'),
  max_age: param.describe('seconds since the last sign-in that the client accepts (OIDC)'),
  login_hint: param.describe('e-mail address to fill in on the sign-in form (OIDC)'),
  id_token_hint: param.describe('an ID token this site issued to the client, naming the expected person (OIDC)'),
});
const signInBody = z.looseObject({ email: param, password: param, csrf_token: param, return_to: param });
const decisionBody = z.looseObject({ decision: param, request: param, csrf_token: param });
const signOutBody = z.looseObject({ csrf_token: param });

function text(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * What the audit log keeps of a typed e-mail: people sometimes type their password into the wrong
 * field, so anything that does not look like an address is not recorded.
 */
function auditableEmail(typed: string): string {
  return /^[^\s@]{1,64}@[^\s@]{1,255}$/.test(typed) ? typed.toLowerCase() : '(not an e-mail address)';
}

/**
 * A fresh sign-in satisfies `prompt=login` and `max_age`; drop both so the flow moves on (max_age=0 would
 * otherwise ask again whenever the redirect crossed a second boundary).
 */
function withoutSatisfiedSignIn(returnTo: string): string {
  const url = new URL(returnTo, 'http://placeholder');
  const prompt = (url.searchParams.get('prompt') ?? '').split(' ').filter((p) => p && p !== 'login');
  if (prompt.length > 0) url.searchParams.set('prompt', prompt.join(' '));
  else url.searchParams.delete('prompt');
  url.searchParams.delete('max_age');
  return url.pathname + url.search;
}

/** The form body of a POSTed authorization request, as the query string a GET would have carried. */
function formAsQuery(body: Record<string, string | string[] | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.append(name, v);
  }
  return query.toString();
}

export function registerAuthorizeRoutes(app: FastifyInstance, services: Services): void {
  const { db, clock, config } = services;
  const csrf: CsrfProtection = createCsrfProtection(services.csrfKeys);
  const pipeline: AuthorizePipelineDeps = {
    clients: services.clients,
    keys: services.keys,
    onCimdRefused: (site, clientId, error) =>
      recordAudit(db, { siteId: site.id, kind: 'cimd.refused', clientId, detail: { reason: error.reason, message: error.message } }, clock),
  };

  const showSignIn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    returnTo: string,
    extra: { email?: string; error?: string } = {},
  ) => sendSignInForm({ db, csrf }, request, reply, status, returnTo, extra);

  const redirectWithCode = async (reply: FastifyReply, site: Site, req: AuthorizationRequest, personId: string, authTime: number) => {
    const code = await issueAuthorizationCode(db, site, req, personId, authTime, config.platform.lifetimes.authorization_code, clock);
    return reply
      .code(303)
      .header('cache-control', 'no-store')
      .header('location', redirectWith(req.redirectUri, { code, state: req.state, iss: site.origin }))
      .send();
  };

  const showConsent = async (
    request: FastifyRequest,
    reply: FastifyReply,
    req: AuthorizationRequest,
    personId: string,
    rawRequest: string,
  ) => {
    const person = await findPersonById(db, personId);
    const theme = await siteTheme(db, request.site.id);
    return sendPage(
      reply,
      200,
      consentPage({
        siteName: request.site.name,
        clientName: req.client.name,
        documentHost: req.client.documentHost,
        personName: person?.name ?? '',
        scopes: req.scopes,
        csrfToken: csrf.issue(request, reply, 'consent'),
        request: rawRequest,
        theme,
      }),
      { allowFormRedirect: true, theme },
    );
  };

  /** OIDC Core 3.1.2.1: GET and POST carry the same request, as the query or as a form body. */
  const authorize = async (request: FastifyRequest, reply: FastifyReply, params: RawParams, rawQuery: string) => {
    const site = request.site;
    const req = await validateAuthorizationRequest(pipeline, site, params);
    const session = await currentSession(db, request, clock);
    const step = await nextStep(db, site, req, session, clock.now());
    const signIn = () => showSignIn(request, reply, 200, `${PATHS.authorization}?${rawQuery}`, { email: req.loginHint ?? undefined });
    if (step.kind === 'sign_in') return signIn();
    if (step.kind === 'consent' && session) return showConsent(request, reply, req, session.personId, rawQuery);
    if (step.kind === 'issue_code') return redirectWithCode(reply, site, req, step.personId, step.authTime);
    return signIn();
  };

  app.get(
    PATHS.authorization,
    { schema: { summary: 'Authorization endpoint (browser)', tags: ['oauth'], querystring: authorizeQuery }, config: { kind: 'page' } },
    async (request, reply) => authorize(request, reply, request.query as RawParams, request.url.slice(request.url.indexOf('?') + 1)),
  );

  app.post(
    PATHS.authorization,
    {
      schema: {
        summary: 'Authorization endpoint (browser, form post)',
        tags: ['oauth'],
        body: authorizeQuery,
        consumes: ['application/x-www-form-urlencoded'],
      },
      config: { kind: 'page' },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, string | string[] | undefined>;
      return authorize(request, reply, body, formAsQuery(body));
    },
  );

  app.post(
    '/oauth/sign-in',
    {
      schema: { summary: 'Sign-in form submission', tags: ['pages'], body: signInBody, consumes: ['application/x-www-form-urlencoded'] },
      config: { kind: 'page' },
      onRequest: addressBudget(services.throttle, {
        name: 'sign-in',
        limit: config.platform.limits.sign_in_rate_per_minute,
        windowSeconds: 60,
      }),
    },
    async (request, reply) => {
      const site = request.site;
      const body = request.body as Record<string, string | string[] | undefined>;
      const returnTo = safeReturnTo(text(body.return_to)) ?? '';
      const email = text(body.email) ?? '';
      if (!csrf.verify(request, 'sign-in', text(body.csrf_token))) {
        return showSignIn(request, reply, 403, returnTo, { email, error: 'This form expired. Please sign in again.' });
      }
      const password = text(body.password) ?? '';
      if (!email || !password || email.length > 320 || password.length > 1024) {
        return showSignIn(request, reply, 400, returnTo, { email, error: 'Enter your email and password.' });
      }
      const result = await signIn(
        db,
        site.id,
        email,
        password,
        { maxFailures: config.platform.sign_in.max_failures, lockoutSeconds: config.platform.sign_in.lockout_seconds },
        clock,
      );
      if (result.kind === 'locked') {
        await recordAudit(db, { siteId: site.id, kind: 'sign_in.locked', detail: { email: auditableEmail(email) } }, clock);
        const { max_failures, lockout_seconds } = config.platform.sign_in;
        reply.headers(
          rateLimitHeaders({
            limit: max_failures,
            remaining: 0,
            resetSeconds: result.retryAfterSeconds,
            policy: `${max_failures};w=${lockout_seconds}`,
          }),
        );
        reply.header('retry-after', String(result.retryAfterSeconds));
        return showSignIn(request, reply, 429, returnTo, {
          email,
          error: `Too many wrong passwords. Try again in ${Math.ceil(result.retryAfterSeconds / 60)} minutes.`,
        });
      }
      if (result.kind === 'wrong') {
        await recordAudit(db, { siteId: site.id, kind: 'sign_in.failed', detail: { email: auditableEmail(email) } }, clock);
        return showSignIn(request, reply, 401, returnTo, { email, error: 'The email or password is not right.' });
      }
      if (result.kind === 'suspended') {
        await recordAudit(
          db,
          { siteId: site.id, kind: 'sign_in.failed', personId: result.personId, detail: { reason: 'suspended' } },
          clock,
        );
        return showSignIn(request, reply, 403, returnTo, {
          email,
          error: `Your account is suspended at ${site.name}. Please contact the school.`,
        });
      }
      const sessionId = await createSession(db, site.id, result.personId, config.platform.lifetimes.session, clock);
      setSessionCookie(reply, site, sessionId, config.platform.lifetimes.session);
      await recordAudit(db, { siteId: site.id, kind: 'sign_in.succeeded', personId: result.personId }, clock);
      if (returnTo) return reply.code(303).header('cache-control', 'no-store').header('location', withoutSatisfiedSignIn(returnTo)).send();
      return sendPage(reply, 200, noticePage(site.name, 'Signed in', 'You are signed in. You can close this page.'));
    },
  );

  app.post(
    '/oauth/authorize/decision',
    {
      schema: { summary: 'Consent form submission', tags: ['pages'], body: decisionBody, consumes: ['application/x-www-form-urlencoded'] },
      config: { kind: 'page' },
    },
    async (request, reply) => {
      const site = request.site;
      const body = request.body as Record<string, string | string[] | undefined>;
      const rawRequest = text(body.request) ?? '';
      const req = await validateAuthorizationRequest(pipeline, site, parseQuery(rawRequest) as RawParams);
      const session = await currentSession(db, request, clock);
      if (!session) return showSignIn(request, reply, 200, `${PATHS.authorization}?${rawRequest}`);
      if (!csrf.verify(request, 'consent', text(body.csrf_token))) {
        return sendPage(reply, 403, messagePage(site.name, 'This form expired', 'Go back to the application and start again.'));
      }
      await assertMayApprove(db, site, req, session.personId);
      const decision = text(body.decision);
      if (decision === 'allow') {
        await rememberConsent(db, site.id, session.personId, req.client.clientId, req.scopes, clock);
        await recordAudit(
          db,
          {
            siteId: site.id,
            kind: 'consent.granted',
            personId: session.personId,
            clientId: req.client.clientId,
            detail: { scope: req.scopes.join(' ') },
          },
          clock,
        );
        return redirectWithCode(reply, site, req, session.personId, session.authTime);
      }
      await recordAudit(db, { siteId: site.id, kind: 'consent.denied', personId: session.personId, clientId: req.client.clientId }, clock);
      throw new RedirectableAuthorizationError('access_denied', 'the person denied the request', req.redirectUri, req.state);
    },
  );

  app.get(
    '/oauth/sign-out',
    { schema: { summary: 'Sign-out page', tags: ['pages'] }, config: { kind: 'page' } },
    async (request, reply) => {
      const token = csrf.issue(request, reply, 'sign-out');
      const body = html`<form method="post" action="/oauth/sign-out"><input type="hidden" name="csrf_token" value="${token}"><div class="actions"><button type="submit">Sign out</button></div></form>`;
      return sendPage(reply, 200, layout('Sign out', request.site.name, body));
    },
  );

  app.post(
    '/oauth/sign-out',
    {
      schema: { summary: 'Sign out of this site', tags: ['pages'], body: signOutBody, consumes: ['application/x-www-form-urlencoded'] },
      config: { kind: 'page' },
    },
    async (request, reply) => {
      const site = request.site;
      const body = request.body as Record<string, string | string[] | undefined>;
      if (!csrf.verify(request, 'sign-out', text(body.csrf_token))) {
        return sendPage(reply, 403, messagePage(site.name, 'This form expired', 'Reload the page and try again.'));
      }
      const sessionId = sessionCookieValue(request);
      const session = await currentSession(db, request, clock);
      if (sessionId) await deleteSession(db, site.id, sessionId);
      if (session) await recordAudit(db, { siteId: site.id, kind: 'sign_out', personId: session.personId }, clock);
      clearSessionCookie(reply, site);
      return sendPage(reply, 200, noticePage(site.name, 'Signed out', 'You are signed out of this site.'));
    },
  );
}
