// CSRF protection for every form: a random per-browser value in an HttpOnly cookie of this site, and in
// each form an HMAC of it bound to the site and the form's purpose (double submit, signed). A cross-site
// page can neither read the cookie nor compute the field, and a value issued by one site of the
// deployment is refused by every other (two sites on one host name share cookies across ports).
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../kernel/hashing.js';
import { randomSecret } from '../kernel/random.js';
import { isSecureOrigin, siteCookieName } from './session-cookie.js';

export const CSRF_COOKIE = 'sg_csrf';

/** One per kind of form; the admin and account pages each share one (their forms change one site's own data). */
export type CsrfPurpose = 'sign-in' | 'consent' | 'sign-out' | 'admin' | 'account';

export interface CsrfProtection {
  /** The form field value for this browser at this site, setting the cookie when it has none. */
  issue(request: FastifyRequest, reply: FastifyReply, purpose: CsrfPurpose): string;
  verify(request: FastifyRequest, purpose: CsrfPurpose, submitted: string | undefined): boolean;
}

/**
 * `keys`: the current secret's CSRF key, which signs, then the previous secret's while the secret changes
 * (keys/secret-keys.ts), which still verifies, so a form opened before the change is not refused after it.
 */
export function createCsrfProtection(keys: readonly [Buffer, ...Buffer[]]): CsrfProtection {
  const signWith = (key: Buffer, siteId: string, browserValue: string, purpose: CsrfPurpose) =>
    createHmac('sha256', key).update(`${siteId}\u0000${purpose}\u0000${browserValue}`).digest('base64url');
  const sign = (siteId: string, browserValue: string, purpose: CsrfPurpose) => signWith(keys[0], siteId, browserValue, purpose);
  return {
    issue(request, reply, purpose) {
      const name = siteCookieName(request.site, CSRF_COOKIE);
      let value = request.cookies[name];
      if (!value || value.length < 32) {
        value = randomSecret();
        reply.setCookie(name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureOrigin(request.site) });
        // A later issue() in this same request must see the value just set.
        request.cookies[name] = value;
      }
      return sign(request.site.id, value, purpose);
    },
    verify(request, purpose, submitted) {
      const value = request.cookies[siteCookieName(request.site, CSRF_COOKIE)];
      if (!value || !submitted) return false;
      return keys.some((key) => constantTimeEqual(signWith(key, request.site.id, value, purpose), submitted));
    },
  };
}
