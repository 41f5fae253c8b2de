// Headers for every HTML page: no framing (frame-ancestors, X-Frame-Options), no scripts, no caching.
// The consent page leaves `form-action` out: Chromium applies it to the redirect that follows the post,
// which would strand the person before reaching the client (INTEROP "Browsers").
import type { FastifyReply } from 'fastify';
import { STYLE_HASH } from './pages/layout.js';
import type { PageTheme } from './pages/theme.js';

export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  options: { allowFormRedirect?: boolean; theme?: PageTheme; styleHash?: string } = {},
): FastifyReply {
  const csp = [
    "default-src 'none'",
    `style-src ${options.styleHash ?? STYLE_HASH}${options.theme ? ` ${options.theme.hash}` : ''}`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(options.allowFormRedirect ? [] : ["form-action 'self'"]),
  ].join('; ');
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(body);
}
