// The admin area (CONTRACT 7, issue 11): server-rendered pages for a site's owner and admins. Every
// request checks the session and the role; every change is a POST carrying a CSRF token, writes an audit
// event and answers 303 to a page (post, redirect, get). Nothing here takes a URL or a name from headers.
import { DAY_MS, utcDayOf } from '../../kernel/calendar-days.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageAudit, recordAudit } from '../../audit/audit-log.js';
import { appNamer } from '../../clients/app-names.js';
import { listConnections, revokeAppAtSite } from '../../clients/connections.js';
import {
  type Actor,
  createApplication,
  deleteApplication,
  MEMBER_APP_SCOPES,
  MemberAppInputError,
  parseAppName,
  parseMemberScopes,
  parseRedirectUris,
  rotateSecret,
  updateRedirectUris,
} from '../../clients/member-app-service.js';
import { findMemberApp, listMemberApps } from '../../clients/member-apps.repository.js';
import { decideClient, listClientDecisions } from '../../clients/site-client-decisions.repository.js';
import { seal, unsealWithAny } from '../../kernel/sealing.js';
import { secretKeys } from '../../keys/secret-keys.js';
import { getMetricTimeseries, getSchoolOverview } from '../../operations/operator/analytics.js';
import { findPersonByEmail } from '../../people/people.repository.js';
import { PageRequestError } from '../../school/paging.js';
import type { Services } from '../../services.js';
import { lastUseByApp, usageByApp } from '../../usage/app-usage.repository.js';
import { createCsrfProtection } from '../csrf.js';
import { createPageAccess, type PageVisitor } from '../page-access.js';
import { ADMIN_STYLE_HASH, adminLayout, type NavLink } from '../pages/admin/admin-layout.js';
import { APPLICATIONS_PATH, applicationsBody, redirectUrisBody } from '../pages/admin/applications-page.js';
import { auditBody } from '../pages/admin/audit-page.js';
import { betaBody } from '../pages/admin/beta-page.js';
import { type ConnectionView, connectionsBody } from '../pages/admin/connections-page.js';
import { overviewBody } from '../pages/admin/overview-page.js';
import type { Raw } from '../pages/html.js';
import { messagePage } from '../pages/message-page.js';
import { siteTheme } from '../pages/site-theme.js';
import { sendPage } from '../security-headers.js';
import { isSecureOrigin, siteCookieName } from '../session-cookie.js';

const form = z.record(z.string(), z.union([z.string(), z.array(z.string())]).optional());
type Form = z.infer<typeof form>;
const FORM_SCHEMA = { hide: true, body: form, consumes: ['application/x-www-form-urlencoded'] } as const;

function text(body: Form, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}
function list(body: Form, name: string): string[] {
  const value = body[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

const NOTICES: Record<string, string> = {
  revoked: 'Revoked: every token of that app at this school stopped working.',
  reviewed: 'Marked reviewed: the client may now ask for write scopes here.',
  blocked: 'Blocked: the client is refused here and its tokens stopped working.',
  reset: 'The client is back to the platform default.',
  deleted: 'Deleted: the application, its tokens and its consents are gone.',
  'uris-saved': 'Redirect URIs saved.',
};

const FLASH_COOKIE = 'sg_flash';
const FLASH_SECONDS = 120;
const ACTION_PATTERN = /^[a-z_.:]{1,64}$/;

export function registerAdminPages(app: FastifyInstance, services: Services): void {
  const { db, clock, config } = services;
  const csrf = createCsrfProtection(services.csrfKeys);
  const visitor = createPageAccess(services, csrf);
  // The one-time secret travels from the POST to the page after it sealed in a short-lived cookie, never in a URL.
  // While the secret changes, the POST and the page after it may reach nodes on either side of the change: the
  // previous secret's key still opens the cookie, or the new client secret would never be shown.
  const flashKeys = secretKeys(config, 'admin-flash');

  const nav = (request: FastifyRequest): NavLink[] => [
    { href: '/admin', label: 'Overview' },
    { href: '/admin/connections', label: 'Connected apps' },
    ...(request.site.mcpBeta ? [{ href: APPLICATIONS_PATH, label: 'OAuth applications' }] : []),
    { href: '/admin/audit', label: 'Audit log' },
    { href: '/admin/settings/beta', label: 'Beta features' },
    { href: '/account/apps', label: 'Your apps' },
  ];

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    v: PageVisitor,
    title: string,
    current: string,
    body: Raw,
    status = 200,
  ) => {
    const theme = await siteTheme(db, request.site.id);
    const page = adminLayout(
      {
        title,
        siteName: request.site.name,
        current,
        nav: nav(request),
        theme,
        personName: v.person.name,
        signOutToken: csrf.issue(request, reply, 'sign-out'),
      },
      body,
    );
    return sendPage(reply, status, page, { theme, styleHash: ADMIN_STYLE_HASH });
  };
  const seeOther = (reply: FastifyReply, location: string) =>
    reply.code(303).header('cache-control', 'no-store').header('location', location).send();
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, 404, messagePage(request.site.name, 'Not found', 'There is no such page here.'));
  /** A signed-in operator's form with a valid CSRF token, or undefined after the refusal was sent. */
  const operatorForm = async (request: FastifyRequest, reply: FastifyReply): Promise<{ v: PageVisitor; body: Form } | undefined> => {
    const v = await visitor(request, reply, 'operator');
    if (!v) return undefined;
    const body = (request.body ?? {}) as Form;
    if (!csrf.verify(request, 'admin', text(body, 'csrf_token'))) {
      await sendPage(reply, 403, messagePage(request.site.name, 'This form expired', 'Reload the page and try again.'));
      return undefined;
    }
    return { v, body };
  };
  const actor = (request: FastifyRequest, v: PageVisitor): Actor => ({
    siteId: request.site.id,
    personId: v.personId,
    requestId: request.id,
  });
  const audit = (
    request: FastifyRequest,
    v: PageVisitor,
    kind: Parameters<typeof recordAudit>[1]['kind'],
    clientId: string | null,
    detail = {},
  ) =>
    recordAudit(
      db,
      {
        siteId: request.site.id,
        kind,
        personId: v.personId,
        clientId,
        requestId: request.id,
        target: clientId ? `client:${clientId}` : `site:${request.site.id}`,
        detail,
      },
      clock,
    );
  const operationContext = (request: FastifyRequest, v: PageVisitor) => ({
    db,
    site: request.site,
    clock,
    personId: v.personId,
    scopes: ['analytics:read'],
    clientId: null,
    requestId: request.id,
  });
  const noticeOf = (request: FastifyRequest) => NOTICES[(request.query as Record<string, string | undefined>).done ?? ''];

  // --- Overview ---
  app.get('/admin', { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const v = await visitor(request, reply, 'operator');
    if (!v) return reply;
    const ctx = operationContext(request, v);
    const [overview, series] = await Promise.all([
      getSchoolOverview.run(ctx, {}),
      getMetricTimeseries.run(ctx, { metric: 'revenue', interval: 'day' }),
    ]);
    return render(
      request,
      reply,
      v,
      'Admin',
      '/admin',
      overviewBody({ ...overview, dailyRevenue: series.series[0]?.points ?? [], mcpConnections: request.site.mcpBeta }),
    );
  });

  // --- Beta features ---
  app.get('/admin/settings/beta', { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const v = await visitor(request, reply, 'operator');
    if (!v) return reply;
    const saved = (request.query as Record<string, string | undefined>).saved === '1';
    return render(
      request,
      reply,
      v,
      'Beta features',
      '/admin/settings/beta',
      betaBody(request.site.mcpBeta, csrf.issue(request, reply, 'admin'), saved),
    );
  });
  app.post('/admin/settings/beta', { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
    const f = await operatorForm(request, reply);
    if (!f) return reply;
    const on = text(f.body, 'mcp_connections') === 'on';
    if (on !== request.site.mcpBeta) {
      await db
        .updateTable('sites')
        .set({ mcp_beta: on ? 1 : 0 })
        .where('id', '=', request.site.id)
        .execute();
      await audit(request, f.v, 'site.mcp_connections_changed', null, { mcp_connections: on });
      // Every node reads its sites again: member apps' tokens stop (or start) working at once.
      await services.signals.publish({ kind: 'flush' });
      await services.sites.reload();
    }
    return seeOther(reply, '/admin/settings/beta?saved=1');
  });

  // --- Developers: member OAuth applications (only while MCP connections is on) ---
  const developer = async (request: FastifyRequest, reply: FastifyReply, method: 'GET' | 'POST') => {
    const f =
      method === 'GET'
        ? await visitor(request, reply, 'operator').then((v) => (v ? { v, body: {} as Form } : undefined))
        : await operatorForm(request, reply);
    if (!f) return undefined;
    if (!request.site.mcpBeta) {
      await notFound(request, reply);
      return undefined;
    }
    return f;
  };
  const showApplications = async (
    request: FastifyRequest,
    reply: FastifyReply,
    v: PageVisitor,
    extra: { error?: string; form?: { name: string; redirectUris: string; kind: string; scopes: string[] }; status?: number } = {},
  ) => {
    const apps = await listMemberApps(db, request.site.id);
    let revealed: { clientId: string; name: string; secret: string | null; created: boolean } | undefined;
    const cookieName = siteCookieName(request.site, FLASH_COOKIE);
    const sealed = request.cookies[cookieName];
    if (sealed) {
      reply.clearCookie(cookieName, { path: APPLICATIONS_PATH, httpOnly: true, sameSite: 'strict', secure: isSecureOrigin(request.site) });
      const opened = unsealWithAny(flashKeys, sealed, `${request.site.id}:${v.personId}`);
      revealed = opened === undefined ? undefined : (JSON.parse(opened) as typeof revealed);
    }
    const body = applicationsBody({
      apps,
      scopes: MEMBER_APP_SCOPES,
      csrfToken: csrf.issue(request, reply, 'admin'),
      revealed,
      notice: noticeOf(request),
      ...extra,
    });
    return render(request, reply, v, 'OAuth applications', APPLICATIONS_PATH, body, extra.status);
  };
  const flash = (
    request: FastifyRequest,
    reply: FastifyReply,
    v: PageVisitor,
    value: { clientId: string; name: string; secret: string | null; created: boolean },
  ) =>
    reply.setCookie(
      siteCookieName(request.site, FLASH_COOKIE),
      seal(flashKeys[0], JSON.stringify(value), `${request.site.id}:${v.personId}`),
      {
        path: APPLICATIONS_PATH,
        httpOnly: true,
        sameSite: 'strict',
        secure: isSecureOrigin(request.site),
        maxAge: FLASH_SECONDS,
      },
    );

  app.get(APPLICATIONS_PATH, { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'GET');
    return f ? showApplications(request, reply, f.v) : reply;
  });
  app.post(APPLICATIONS_PATH, { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'POST');
    if (!f) return reply;
    const typed = {
      name: text(f.body, 'name'),
      redirectUris: text(f.body, 'redirect_uris'),
      kind: text(f.body, 'kind'),
      scopes: list(f.body, 'scope'),
    };
    try {
      const name = parseAppName(typed.name);
      const redirectUris = parseRedirectUris(typed.redirectUris.split(/\r?\n/));
      if (typed.kind !== 'public' && typed.kind !== 'confidential')
        throw new MemberAppInputError('choose a client type: public or confidential');
      const scopes = parseMemberScopes(typed.scopes);
      const created = await createApplication({ db, clock, signals: services.signals }, actor(request, f.v), {
        name,
        kind: typed.kind,
        redirectUris,
        scopes,
      });
      flash(request, reply, f.v, { clientId: created.clientId, name, secret: created.secret, created: true });
      return seeOther(reply, APPLICATIONS_PATH);
    } catch (err) {
      if (!(err instanceof MemberAppInputError)) throw err;
      return showApplications(request, reply, f.v, { error: `Not created: ${err.message}.`, form: typed, status: 400 });
    }
  });
  app.post(`${APPLICATIONS_PATH}/:clientId/rotate-secret`, { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'POST');
    if (!f) return reply;
    const { clientId } = request.params as { clientId: string };
    const existing = await findMemberApp(db, request.site.id, clientId);
    if (existing?.kind !== 'confidential') return notFound(request, reply);
    const secret = await rotateSecret({ db, clock, signals: services.signals }, actor(request, f.v), clientId);
    if (secret === undefined) return notFound(request, reply);
    flash(request, reply, f.v, { clientId, name: existing.name, secret, created: false });
    return seeOther(reply, APPLICATIONS_PATH);
  });
  app.post(`${APPLICATIONS_PATH}/:clientId/delete`, { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'POST');
    if (!f) return reply;
    const { clientId } = request.params as { clientId: string };
    const deleted = await deleteApplication({ db, clock, signals: services.signals }, actor(request, f.v), clientId);
    return deleted ? seeOther(reply, `${APPLICATIONS_PATH}?done=deleted`) : notFound(request, reply);
  });
  const urisPath = `${APPLICATIONS_PATH}/:clientId/redirect-uris`;
  app.get(urisPath, { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'GET');
    if (!f) return reply;
    const found = await findMemberApp(db, request.site.id, (request.params as { clientId: string }).clientId);
    if (!found) return notFound(request, reply);
    const value = (JSON.parse(found.redirect_uris) as string[]).join('\n');
    return render(
      request,
      reply,
      f.v,
      'Edit redirect URIs',
      APPLICATIONS_PATH,
      redirectUrisBody(found, csrf.issue(request, reply, 'admin'), value),
    );
  });
  app.post(urisPath, { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
    const f = await developer(request, reply, 'POST');
    if (!f) return reply;
    const found = await findMemberApp(db, request.site.id, (request.params as { clientId: string }).clientId);
    if (!found) return notFound(request, reply);
    const typed = text(f.body, 'redirect_uris');
    try {
      const uris = parseRedirectUris(typed.split(/\r?\n/));
      await updateRedirectUris({ db, clock, signals: services.signals }, actor(request, f.v), found.client_id, uris);
      return seeOther(reply, `${APPLICATIONS_PATH}?done=uris-saved`);
    } catch (err) {
      if (!(err instanceof MemberAppInputError)) throw err;
      const body = redirectUrisBody(found, csrf.issue(request, reply, 'admin'), typed, `Not saved: ${err.message}.`);
      return render(request, reply, f.v, 'Edit redirect URIs', APPLICATIONS_PATH, body, 400);
    }
  });

  // --- Connected apps ---
  app.get('/admin/connections', { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const v = await visitor(request, reply, 'operator');
    if (!v) return reply;
    const site = request.site;
    // This node's counts so far are written first, so the page is exact for everything this node served.
    await services.usage.flush().catch((err: unknown) => request.log.warn({ err }, 'writing app usage counts failed'));
    const since = utcDayOf(clock.now() - 6 * DAY_MS);
    const [connections, usage, decisions, name] = await Promise.all([
      listConnections(db, site.id),
      usageByApp(db, site.id, since),
      listClientDecisions(db, site.id),
      appNamer(db, site.id, config.platform.vendors),
    ]);
    const lastUse = await lastUseByApp(
      db,
      site.id,
      connections.map((c) => c.clientId),
    );
    const decided = new Map(decisions.map((d) => [d.client_id, d.decision]));
    const reviewedHosts = new Set(config.platform.cimd.reviewed_hosts.map((h) => h.toLowerCase()));
    const views: ConnectionView[] = connections.map((c) => {
      const who = name(c.clientId);
      const view: ConnectionView = {
        clientId: c.clientId,
        name: who.name,
        kind: who.kind,
        people: c.people,
        somePeople: c.somePeople.map((p) => p.name || p.email),
        scopes: c.scopes,
        lastUse: lastUse.get(c.clientId) ?? null,
        requests7d: usage.get(c.clientId)?.requests ?? 0,
      };
      if (who.kind === 'cimd') {
        const decision = decided.get(c.clientId);
        view.review = decision
          ? { state: decision, source: 'site' }
          : reviewedHosts.has(who.name.toLowerCase())
            ? { state: 'reviewed', source: 'platform' }
            : { state: 'unreviewed', source: 'default' };
      }
      return view;
    });
    const decisionViews = decisions.map((d) => ({ clientId: d.client_id, decision: d.decision, decidedAt: d.decided_at }));
    return render(
      request,
      reply,
      v,
      'Connected apps',
      '/admin/connections',
      connectionsBody(views, decisionViews, csrf.issue(request, reply, 'admin'), noticeOf(request)),
    );
  });

  /** The client a connections form names: any app for Revoke; for review, block and reset, a Client ID Metadata Document client. */
  const connectionForm = (
    path: string,
    onlyCimd: boolean,
    act: (request: FastifyRequest, v: PageVisitor, clientId: string) => Promise<string>,
  ) =>
    app.post(path, { schema: FORM_SCHEMA, config: { kind: 'page' } }, async (request, reply) => {
      const f = await operatorForm(request, reply);
      if (!f) return reply;
      const clientId = text(f.body, 'client_id');
      if (clientId === '' || clientId.length > 2000 || (onlyCimd && !clientId.startsWith('https://'))) {
        return sendPage(reply, 400, messagePage(request.site.name, 'Not possible', 'That is not a client this action applies to.'));
      }
      return seeOther(reply, `/admin/connections?done=${await act(request, f.v, clientId)}`);
    });
  const revokeAll = async (request: FastifyRequest, v: PageVisitor, clientId: string) => {
    const ended = await revokeAppAtSite({ db, clock, signals: services.signals }, request.site.id, clientId);
    await audit(request, v, 'client.revoked', clientId, { grants: ended });
  };
  connectionForm('/admin/connections/revoke', false, async (request, v, clientId) => {
    await revokeAll(request, v, clientId);
    return 'revoked';
  });
  connectionForm('/admin/connections/review', true, async (request, v, clientId) => {
    await decideClient(db, request.site.id, clientId, 'reviewed', v.personId, clock);
    await audit(request, v, 'client.reviewed', clientId);
    await services.signals.publish({ kind: 'flush' });
    return 'reviewed';
  });
  connectionForm('/admin/connections/block', true, async (request, v, clientId) => {
    await decideClient(db, request.site.id, clientId, 'blocked', v.personId, clock);
    await audit(request, v, 'client.blocked', clientId);
    await services.signals.publish({ kind: 'flush' });
    await revokeAll(request, v, clientId);
    return 'blocked';
  });
  connectionForm('/admin/connections/reset', true, async (request, v, clientId) => {
    await decideClient(db, request.site.id, clientId, null, v.personId, clock);
    await audit(request, v, 'client.decision_cleared', clientId);
    await services.signals.publish({ kind: 'flush' });
    return 'reset';
  });

  // --- Audit log ---
  app.get('/admin/audit', { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const v = await visitor(request, reply, 'operator');
    if (!v) return reply;
    const q = request.query as Record<string, string | string[] | undefined>;
    const one = (name: string) => {
      const value = q[name];
      return (typeof value === 'string' ? value : '').trim().slice(0, 320);
    };
    const filter = { actor: one('actor'), app: one('app'), action: one('action') };
    const show = (records: Parameters<typeof auditBody>[0], people: Map<string, string>, next: string | null, error?: string) =>
      render(
        request,
        reply,
        v,
        'Audit log',
        '/admin/audit',
        auditBody(records, people, filter, next, config.platform.janitor.token_event_retention_days, error),
        error ? 400 : 200,
      );
    if (filter.action !== '' && !ACTION_PATTERN.test(filter.action))
      return show([], new Map(), null, 'An action is a name such as consent.granted or a prefix such as operator.');
    let actorId: string | undefined;
    if (filter.actor !== '') {
      const person = await findPersonByEmail(db, filter.actor);
      if (!person) return show([], new Map(), null, `No one with the email ${filter.actor} is known here.`);
      actorId = person.id;
    }
    try {
      const page = await pageAudit(
        db,
        request.site.id,
        { actorId, clientId: filter.app || undefined, action: filter.action || undefined },
        { first: 50, after: one('after') || null },
      );
      const records = page.edges.map((e) => e.node);
      const ids = [...new Set(records.flatMap((r) => (r.personId ? [r.personId] : [])))];
      const people = ids.length === 0 ? [] : await db.selectFrom('people').select(['id', 'name', 'email']).where('id', 'in', ids).execute();
      return show(records, new Map(people.map((p) => [p.id, `${p.name} <${p.email}>`])), page.hasNextPage ? page.endCursor : null);
    } catch (err) {
      if (err instanceof PageRequestError)
        return show([], new Map(), null, 'That page link is not valid any more: start again from the newest events.');
      throw err;
    }
  });
}
