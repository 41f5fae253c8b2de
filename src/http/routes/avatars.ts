// Avatars for demo people (CONTRACT 3: every picture URL is served by the site): an SVG of initials.
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { escapeHtml } from '../pages/html.js';

export function registerAvatarRoutes(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>('/avatars/:name', { schema: { hide: true } }, async (request, reply) => {
    const name = request.params.name.replace(/\.svg$/, '');
    if (!/^[a-z0-9-]{1,40}$/.test(name)) return reply.code(404).send();
    const hue = createHash('sha256').update(name).digest()[0] ?? 0;
    const initial = escapeHtml(name.slice(0, 1).toUpperCase());
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="hsl(${Math.round((hue / 255) * 360)},55%,45%)"/><text x="48" y="62" font-family="sans-serif" font-size="44" text-anchor="middle" fill="#fff">${initial}</text></svg>`;
    return reply
      .header('content-type', 'image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(svg);
  });
}
