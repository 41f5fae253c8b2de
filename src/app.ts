// Builds the Fastify application from its dependencies; never listens (main.ts and tests do).
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppDeps } from './app-deps.js';
import { registerCors } from './http/cors.js';
import { REQUEST_ID_HEADER, requestIdGenerator } from './http/request-id.js';
import { logSerializers } from './observability/log-redaction.js';
import { lazyRequestLogger } from './observability/request-logger.js';
import { handleError } from './http/error-handler.js';
import { registerNotFound } from './http/not-found.js';
import { ADMIN_API_BASE, registerAdminApiRoutes } from './http/routes/admin-api.js';
import { registerAuthorizeRoutes } from './http/routes/authorize.js';
import { registerAvatarRoutes } from './http/routes/avatars.js';
import { registerDiscoveryRoutes } from './http/routes/discovery.js';
import { registerMetricsRoute } from './http/routes/metrics.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerAssetRoutes } from './http/routes/assets.js';
import { registerDocRoutes } from './http/routes/docs.js';
import { registerMcpRoutes } from './http/routes/mcp.js';
import { registerMemberGraphqlRoutes } from './http/routes/member-graphql.js';
import { registerRegistrationRoutes } from './http/routes/register.js';
import { registerTokenRoutes } from './http/routes/token.js';
import { registerUserInfoRoutes } from './http/routes/userinfo.js';
import { siteResolver } from './http/site-resolution.js';
import { writeAnswersAtTurnEnd } from './http/turn-end-writes.js';
import { registerAccountPages } from './http/routes/account-pages.js';
import { registerAdminPages } from './http/routes/admin-pages.js';
import { createServices, type Services } from './services.js';
import { operatorSecuritySchemes } from './http/routes/docs.js';
import { answerBody } from './http/answer-bytes.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const services = createServices(deps);
  const { config } = deps;
  const logger = deps.logger ?? { level: process.env.LOG_LEVEL ?? 'info' };
  const app = Fastify({
    // Whatever the destination, log lines go through our serializers: no headers, no secrets in URLs.
    logger: logger && typeof logger === 'object' ? { ...logger, serializers: logSerializers } : logger,
    genReqId: requestIdGenerator(config.trustProxy),
    // A log line per request costs a large share of a fast endpoint's time; errors are still logged.
    logController: new LogController({ disableRequestLogging: process.env.LOG_REQUESTS !== '1' }),
    childLoggerFactory: lazyRequestLogger,
    trustProxy: config.trustProxy === false ? false : config.trustProxy,
    bodyLimit: config.platform.limits.body_bytes,
    // A request that never finishes must not hold a connection forever.
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    return503OnClosing: true,
  });
  app.decorate('services', services);
  services.usage.start((err) => app.log.error({ err }, 'writing app usage counts failed'));
  app.addHook('onClose', async () => {
    await services.usage.stop().catch((err: unknown) => app.log.error({ err }, 'writing app usage counts failed'));
    await services.signals.close();
    services.redis?.disconnect();
  });
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the API; serialising plainly keeps the hot paths free of validation. A large
  // answer is bytes (http/answer-bytes.ts): Fastify's type says a serializer returns a string, while its
  // reply sends a Buffer a serializer returns as it sends one given to reply.send.
  app.setSerializerCompiler(() => (data) => answerBody(JSON.stringify(data)) as string);
  app.setErrorHandler(handleError);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'schoolgate',
        version: '1',
        description: 'OAuth 2.0 / OpenID Connect authorization server and member APIs of a school site',
      },
      components: { securitySchemes: operatorSecuritySchemes() },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(formbody, { bodyLimit: config.platform.limits.body_bytes });

  writeAnswersAtTurnEnd(app);
  // Synchronous hooks: an async one costs a promise on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('onRequest', siteResolver(services.sites));
  // The route template, not the URL, labels the metrics: a scan of random paths adds no series.
  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  await registerCors(app);
  registerNotFound(app);

  registerHealthRoutes(app, services);
  registerMetricsRoute(app, services);
  registerDiscoveryRoutes(app, services);
  registerDocRoutes(app, services);
  registerAssetRoutes(app, services);
  // Cookies matter only to the pages a person drives; API requests skip parsing them.
  await app.register(async (pages) => {
    await pages.register(cookie);
    registerAuthorizeRoutes(pages, services);
    registerAdminPages(pages, services);
    registerAccountPages(pages, services);
  });
  registerTokenRoutes(app, services);
  registerUserInfoRoutes(app, services);
  registerMcpRoutes(app, services);
  registerMemberGraphqlRoutes(app, services);
  registerRegistrationRoutes(app, services);
  await app.register(async (admin) => registerAdminApiRoutes(admin, services), { prefix: ADMIN_API_BASE });
  registerAvatarRoutes(app);

  await services.sites.reload();
  return app;
}
