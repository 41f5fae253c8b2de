// GET /metrics (Prometheus text format) on the main listener, only when METRICS_TOKEN is set and the
// scraper sends it as a bearer token. Without a token the metrics are served on METRICS_PORT instead
// (observability/metrics-listener.ts), which an operator keeps off the public network.
import type { FastifyInstance } from 'fastify';
import { constantTimeEqual, hashToken } from '../../kernel/hashing.js';
import type { Services } from '../../services.js';

export const METRICS_PATH = '/metrics';

export function registerMetricsRoute(app: FastifyInstance, services: Services): void {
  const token = services.config.metricsToken;
  if (!token) return;
  const expected = hashToken(token);
  app.get(METRICS_PATH, { schema: { hide: true }, config: { siteless: true } }, async (request, reply) => {
    const presented = /^Bearer ([!-~]+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!presented || !constantTimeEqual(hashToken(presented), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .header('cache-control', 'no-store')
        .send({ error: 'unauthorized', error_description: 'send the METRICS_TOKEN as a bearer token' });
    }
    const { contentType, body } = await services.metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
