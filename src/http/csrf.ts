// CSRF protection for every form: a random per-browser value in an HttpOnly cookie, and in each form
// an HMAC of it bound to the form's purpose (double submit, signed). A cross-site page can neither read
// the cookie nor compute the field.
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../kernel/hashing.js';
import { randomSecret } from '../kernel/random.js';

export const CSRF_COOKIE = 'sg_csrf';

export type CsrfPurpose = 'sign-in' | 'consent' | 'sign-out';

export interface CsrfProtection {
  /** The form field value for this browser, setting the cookie when it has none. */
  issue(request: FastifyRequest, reply: FastifyReply, purpose: CsrfPurpose, secure: boolean): string;
  verify(request: FastifyRequest, purpose: CsrfPurpose, submitted: string | undefined): boolean;
}

export function createCsrfProtection(key: Buffer): CsrfProtection {
  const sign = (browserValue: string, purpose: CsrfPurpose) =>
    createHmac('sha256', key).update(`${purpose}:${browserValue}`).digest('base64url');
  return {
    issue(request, reply, purpose, secure) {
      let value = request.cookies[CSRF_COOKIE];
      if (!value || value.length < 32) {
        value = randomSecret();
        reply.setCookie(CSRF_COOKIE, value, { path: '/', httpOnly: true, sameSite: 'lax', secure });
        // A later issue() in this same request must see the value just set.
        request.cookies[CSRF_COOKIE] = value;
      }
      return sign(value, purpose);
    },
    verify(request, purpose, submitted) {
      const value = request.cookies[CSRF_COOKIE];
      if (!value || !submitted) return false;
      return constantTimeEqual(sign(value, purpose), submitted);
    },
  };
}
