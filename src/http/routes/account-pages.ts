// /account/apps (CONTRACT 7, issue 11): a member's own apps at this site, what each used, and Revoke.
// The log is what the doors counted (usage/usage-recorder.ts), grouped by day and thing so it stays short.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { recordAudit } from '../../audit/audit-log.js';
import { appNamer } from '../../clients/app-names.js';
import { personApps, withdrawPersonApp } from '../../clients/connections.js';
import { findTool } from '../../operations/registry.js';
import type { Services } from '../../services.js';
import { personAccessLog } from '../../usage/app-usage.repository.js';
import { createCsrfProtection } from '../csrf.js';
import { createPageAccess } from '../page-access.js';
import { type AccessGroup, accountAppsBody, type MemberAppView } from '../pages/account/apps-page.js';
import { ADMIN_STYLE_HASH, adminLayout, type NavLink } from '../pages/admin/admin-layout.js';
import { messagePage } from '../pages/message-page.js';
import { siteTheme } from '../pages/site-theme.js';
import { sendPage } from '../security-headers.js';

const form = z.record(z.string(), z.union([z.string(), z.array(z.string())]).optional());
/** Days of use shown per app, and rows read for the whole page (a bound on its size). */
const DAYS_SHOWN = 14;
const LOG_ROWS = 2000;

/** What a member reads for a recorded use: the tool's title, the GraphQL field, or the endpoint. */
export function describeUse(what: string): string {
  if (what === 'userinfo') return 'your profile (name, email)';
  if (what === 'mcp') return 'connected through MCP';
  if (what.startsWith('mcp:')) {
    const tool = findTool(what.slice(4));
    return tool ? `${tool.title} (MCP)` : what.slice(4);
  }
  if (what.startsWith('graphql:viewer.')) return `your ${what.slice('graphql:viewer.'.length)} (GraphQL)`;
  if (what.startsWith('graphql:')) return `${what.slice('graphql:'.length)} (GraphQL)`;
  if (what.startsWith('api:')) return `${what.slice(4)} (operator API)`;
  return what;
}

export function registerAccountPages(app: FastifyInstance, services: Services): void {
  const { db, clock, config } = services;
  const csrf = createCsrfProtection(services.csrfKeys);
  const visitor = createPageAccess(services, csrf);
  const retentionDays = config.platform.janitor.access_log_retention_days;

  app.get('/account/apps', { schema: { hide: true }, config: { kind: 'page' } }, async (request, reply) => {
    const v = await visitor(request, reply, 'member');
    if (!v) return reply;
    const site = request.site;
    await services.usage.flush().catch((err: unknown) => request.log.warn({ err }, 'writing app usage counts failed'));
    const [apps, log, name] = await Promise.all([
      personApps(db, site.id, v.personId),
      personAccessLog(db, site.id, v.personId, LOG_ROWS),
      appNamer(db, site.id, config.platform.vendors),
    ]);
    const views: MemberAppView[] = apps.map((a) => {
      const mine = log.filter((e) => e.clientId === a.clientId);
      const groups: AccessGroup[] = [];
      for (const entry of mine) {
        let group = groups.at(-1);
        if (group?.day !== entry.day) {
          if (groups.length >= DAYS_SHOWN) break;
          group = { day: entry.day, items: [] };
          groups.push(group);
        }
        group.items.push({ label: describeUse(entry.what), write: entry.write, requests: entry.requests });
      }
      const lastUse = mine.reduce<number | null>((last, e) => (last === null || e.lastAt > last ? e.lastAt : last), null);
      return { clientId: a.clientId, name: name(a.clientId).name, scopes: a.scopes, allowedAt: a.allowedAt, lastUse, log: groups };
    });
    const operator = v.person.roles.some((r) => r === 'owner' || r === 'admin');
    const nav: NavLink[] = [...(operator ? [{ href: '/admin', label: 'Admin' }] : []), { href: '/account/apps', label: 'Your apps' }];
    const notice =
      (request.query as Record<string, string | undefined>).done === 'revoked'
        ? 'Revoked: that app can no longer use your account here.'
        : undefined;
    const theme = await siteTheme(db, site.id);
    const page = adminLayout(
      {
        title: 'Your apps',
        siteName: site.name,
        current: '/account/apps',
        nav,
        theme,
        personName: v.person.name,
        signOutToken: csrf.issue(request, reply, 'sign-out'),
      },
      accountAppsBody(views, csrf.issue(request, reply, 'account'), retentionDays, notice),
    );
    return sendPage(reply, 200, page, { theme, styleHash: ADMIN_STYLE_HASH });
  });

  app.post(
    '/account/apps/revoke',
    { schema: { hide: true, body: form, consumes: ['application/x-www-form-urlencoded'] }, config: { kind: 'page' } },
    async (request, reply) => {
      const v = await visitor(request, reply, 'member');
      if (!v) return reply;
      const body = (request.body ?? {}) as Record<string, string | string[] | undefined>;
      const token = typeof body.csrf_token === 'string' ? body.csrf_token : undefined;
      if (!csrf.verify(request, 'account', token)) {
        return sendPage(reply, 403, messagePage(request.site.name, 'This form expired', 'Reload the page and try again.'));
      }
      const clientId = typeof body.client_id === 'string' ? body.client_id : '';
      if (clientId === '' || clientId.length > 2000)
        return sendPage(reply, 400, messagePage(request.site.name, 'Not possible', 'No app was named.'));
      const ended = await withdrawPersonApp({ db, clock, signals: services.signals }, request.site.id, v.personId, clientId);
      await recordAudit(
        db,
        {
          siteId: request.site.id,
          kind: 'consent.withdrawn',
          personId: v.personId,
          clientId,
          requestId: request.id,
          target: `client:${clientId}`,
          detail: { grants: ended },
        },
        clock,
      );
      return reply.code(303).header('cache-control', 'no-store').header('location', '/account/apps?done=revoked').send();
    },
  );
}
