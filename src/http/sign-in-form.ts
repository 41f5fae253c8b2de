// The sign-in form as every page shows it (CONTRACT 4, 7): the authorization endpoint, and the admin and
// account pages for a visitor without a session, who comes back to the page after signing in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { PATHS } from '../oauth/discovery.js';
import type { Database } from '../storage/schema.js';
import type { CsrfProtection } from './csrf.js';
import { siteTheme } from './pages/site-theme.js';
import { signInPage } from './pages/sign-in-page.js';
import { sendPage } from './security-headers.js';

/** Pages a person may be sent back to after signing in: paths on this origin, never another host. */
const RETURNABLE_PAGES = ['/admin', '/account/apps'];

/** Only an authorization request or one of our own pages may be returned to after signing in. */
export function safeReturnTo(value: string | undefined): string | undefined {
  if (value === undefined || value.includes('\\')) return undefined;
  if (value.startsWith(`${PATHS.authorization}?`)) return value;
  const page = RETURNABLE_PAGES.find((p) => value === p || value.startsWith(`${p}/`) || value.startsWith(`${p}?`));
  return page && !value.startsWith('//') ? value : undefined;
}

export async function sendSignInForm(
  deps: { db: Kysely<Database>; csrf: CsrfProtection },
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  returnTo: string,
  extra: { email?: string; error?: string } = {},
): Promise<FastifyReply> {
  const theme = await siteTheme(deps.db, request.site.id);
  return sendPage(
    reply,
    status,
    signInPage({ siteName: request.site.name, csrfToken: deps.csrf.issue(request, reply, 'sign-in'), returnTo, ...extra, theme }),
    { theme },
  );
}
