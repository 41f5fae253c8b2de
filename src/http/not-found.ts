// What the service answers where no route serves a request: 404, or 405 with Allow when the path is served
// under other methods (GET on the token endpoint, say: the endpoint is there, only the method is wrong;
// RFC 9110 15.5.6). A route that exists for some sites only (the other variant's GraphQL path) answers as
// if it did not exist at all, through `answerAsUnknownPath`. The operator API renders its own 405 as a
// problem document, from the same rule (`allowedMethods`). Which methods a path is served under is asked
// of Fastify's own router (findRoute matches a concrete path, parameters included), so a wrong method under
// /assets/:id is a 405 as well, and no second matcher can drift from the routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const ROUTED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Requests a route handed to the not-found handler to be answered as an unknown path. */
const unknownHere = new WeakSet<FastifyRequest>();

/** Answers this request exactly as a path no route serves (404, never 405). */
export function answerAsUnknownPath(request: FastifyRequest, reply: FastifyReply): void {
  unknownHere.add(request);
  reply.callNotFound();
}

/**
 * The methods a request's path is served under (its Allow header), in one order everywhere; none for a
 * preflight, which keeps its 404 so that a path without CORS says nothing to a browser, and none for a
 * request a route asked to be answered as an unknown path.
 */
export function allowedMethods(app: FastifyInstance, request: FastifyRequest): string[] {
  if (request.method === 'OPTIONS' || unknownHere.has(request)) return [];
  const url = request.url.split('?', 1)[0] ?? request.url;
  return ROUTED_METHODS.filter((method) => app.findRoute({ method, url }) !== null);
}

export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(app, request);
    if (allowed.length > 0)
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_request', error_description: `${request.method} is not allowed here; use ${allowed.join(' or ')}` });
    return reply.code(404).header('cache-control', 'no-store').send({ error: 'not_found', error_description: 'no such endpoint' });
  });
}
