// Who may see the admin and account pages (CONTRACT 7), decided on every request from the session and the
// person's current roles (read through the coherent cache, so a demotion reaches every node at once).
// Without a session: the sign-in form, then back to the page. Signed in without the role: a 403 page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OPERATOR_ROLES, type PersonWithRoles } from '../people/people.repository.js';
import type { Services } from '../services.js';
import type { CsrfProtection } from './csrf.js';
import { messagePage } from './pages/message-page.js';
import { sendPage } from './security-headers.js';
import { currentSession } from './session-cookie.js';
import { sendSignInForm } from './sign-in-form.js';

export interface PageVisitor {
  personId: string;
  person: PersonWithRoles;
}

export type Audience = 'operator' | 'member';

export function createPageAccess(services: Services, csrf: CsrfProtection) {
  /** The signed-in visitor allowed on this page, or undefined after the answer was sent. */
  return async function visitor(request: FastifyRequest, reply: FastifyReply, audience: Audience): Promise<PageVisitor | undefined> {
    const session = await currentSession(services.db, request, services.clock);
    if (!session) {
      // A form posted without a session is not replayed after signing in: back to the area's first page.
      const returnTo = request.method === 'GET' ? request.url : audience === 'operator' ? '/admin' : '/account/apps';
      await sendSignInForm({ db: services.db, csrf }, request, reply, 200, returnTo);
      return undefined;
    }
    const person = await services.people(request.site.id, session.personId);
    const allowed =
      person !== undefined &&
      !person.suspended &&
      (audience === 'operator' ? person.roles.some((r) => OPERATOR_ROLES.includes(r)) : person.roles.length > 0);
    if (!person || !allowed) {
      const message =
        audience === 'operator'
          ? `Only the owner and admins of ${request.site.name} can open its admin area.`
          : `You have no role at ${request.site.name}, so there is nothing of yours here.`;
      await sendPage(reply, 403, messagePage(request.site.name, 'Not allowed', message));
      return undefined;
    }
    return { personId: session.personId, person };
  };
}
