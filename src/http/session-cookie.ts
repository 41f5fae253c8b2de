// The sign-in session cookie: opaque, HttpOnly, SameSite=Lax, one per site. Browsers scope cookies by host,
// not by port, so two sites on one host name (http://localhost:3001 and :3002) would share one cookie named
// for the service alone: signing in at one would replace the other's session. Each site's cookies carry
// its id in their name, and on https origins the `__Host-` prefix (Secure, Path=/, no Domain) keeps any
// sibling host from setting or shadowing them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { findSession, type Session } from '../people/sessions.repository.js';
import type { Site } from '../sites/site.js';
import type { Database } from '../storage/schema.js';

export const SESSION_COOKIE = 'sg_session';

export function isSecureOrigin(site: Site): boolean {
  return site.origin.startsWith('https:');
}

/** The name of one of this site's cookies: `sg_session_<site id>`, `__Host-` prefixed on https. */
export function siteCookieName(site: Site, base: string): string {
  return `${isSecureOrigin(site) ? '__Host-' : ''}${base}_${site.id}`;
}

export function sessionCookieValue(request: FastifyRequest): string | undefined {
  return request.cookies[siteCookieName(request.site, SESSION_COOKIE)];
}

export async function currentSession(db: Kysely<Database>, request: FastifyRequest, clock: Clock): Promise<Session | undefined> {
  const id = sessionCookieValue(request);
  if (!id || id.length > 128) return undefined;
  return findSession(db, request.site.id, id, clock);
}

export function setSessionCookie(reply: FastifyReply, site: Site, sessionId: string, lifetimeSeconds: number): void {
  reply.setCookie(siteCookieName(site, SESSION_COOKIE), sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isSecureOrigin(site),
    maxAge: lifetimeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, site: Site): void {
  reply.clearCookie(siteCookieName(site, SESSION_COOKIE), { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureOrigin(site) });
}
