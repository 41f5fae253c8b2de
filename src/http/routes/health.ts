// Liveness and readiness for load balancers and orchestrators (issue 8, "Operations"). Both are cheap,
// outside rate limits, and answer on any Host: a probe calls a node by its address, not a site's name.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { checkReadiness } from '../../observability/readiness.js';
import type { Services } from '../../services.js';

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get(
    HEALTH_PATHS.live,
    {
      schema: {
        summary: 'Liveness: the process serves requests',
        tags: ['operations'],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
      config: { siteless: true },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  app.get(
    HEALTH_PATHS.ready,
    {
      schema: {
        summary: 'Readiness: the database and, when configured, Redis answer',
        tags: ['operations'],
        response: {
          '2xx': z.object({ status: z.string(), database: z.string(), redis: z.string().optional() }),
          503: z.object({ status: z.string(), database: z.string(), redis: z.string().optional() }),
        },
      },
      config: { siteless: true },
    },
    async (_request, reply) => {
      const { ready, ...parts } = await checkReadiness(services.db, services.redis);
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'unavailable', ...parts });
    },
  );
}
