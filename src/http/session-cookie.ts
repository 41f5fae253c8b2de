// The sign-in session cookie: opaque, HttpOnly, SameSite=Lax, Secure on https origins, per origin.
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

export async function currentSession(db: Kysely<Database>, request: FastifyRequest, clock: Clock): Promise<Session | undefined> {
  const id = request.cookies[SESSION_COOKIE];
  if (!id || id.length > 128) return undefined;
  return findSession(db, request.site.id, id, clock);
}

export function setSessionCookie(reply: FastifyReply, site: Site, sessionId: string, lifetimeSeconds: number): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isSecureOrigin(site),
    maxAge: lifetimeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply, site: Site): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureOrigin(site) });
}
