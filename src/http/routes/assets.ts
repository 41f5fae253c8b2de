// Uploaded assets served from the site's own origin (issue 10 storage): the stored file with the media
// type it was checked to be, `nosniff` so no browser guesses another, and a sandboxing CSP so even a PDF
// viewer runs nothing of ours. An asset's content never changes under its id: cached for a year.
import type { FastifyInstance } from 'fastify';
import { findAsset } from '../../school/assets.repository.js';
import type { Services } from '../../services.js';
import { sendProblem } from '../problem.js';

export function registerAssetRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { id: string } }>(
    '/assets/:id',
    { schema: { summary: 'An uploaded asset of this school', tags: ['assets'] } },
    async (request, reply) => {
      const missing = () => sendProblem(reply, { code: 'not_found', status: 404, detail: 'This school has no asset with this id.' });
      const { id } = request.params;
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return missing();
      const asset = await findAsset({ db: services.db, siteId: request.site.id }, id);
      if (!asset) return missing();
      const file = await services.assets.open(asset.storageKey);
      if (!file) return missing();
      const tag = `"${asset.sha256}"`;
      reply
        .header('content-type', asset.mediaType)
        .header('content-length', String(file.size))
        .header('etag', tag)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-site')
        .header('cache-control', 'public, max-age=31536000, immutable');
      if (request.headers['if-none-match'] === tag) {
        file.stream.destroy();
        return reply.code(304).send();
      }
      return reply.send(file.stream);
    },
  );
}
