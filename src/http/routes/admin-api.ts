// The operator REST API (SPEC 4.4, CONTRACT 6): one generic door that walks the operation registry and
// gives each operator operation its method and path under /api/admin/v1. The bearer, scope and role
// checks are the ones every resource uses (bearer-guard.ts, oauth/standing.ts); errors other than the
// bearer challenges are RFC 9457 problems. No route here knows any one operation.
import { type StagedUpload, stageUpload } from '../../assets/stage-upload.js';
import { STORE_RETRY_AFTER_SECONDS } from '../../storage/store-faults.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { etagOf, ifMatchHolds, ifNoneMatchHits } from '../../operations/etag.js';
import { claimKey, completeKey, IDEMPOTENCY_KEY, releaseKey, requestFingerprint } from '../../operations/idempotency.js';
import {
  type Operation,
  type OperationContext,
  OperationError,
  type OperationErrorCode,
  type RestRoute,
  type RunOptions,
} from '../../operations/operation.js';
import { REST_OPERATIONS } from '../../operations/registry.js';
import type { Services } from '../../services.js';
import { guardBearer } from '../bearer-guard.js';
import { allowedMethods } from '../not-found.js';
import { type Problem, type ProblemCode, problemDocument, sendProblem } from '../problem.js';
import { queryInput } from './query-input.js';

export const ADMIN_API_BASE = '/api/admin/v1';

const STATUS: Record<OperationErrorCode, [ProblemCode, number]> = {
  invalid_argument: ['invalid_argument', 400],
  not_found: ['not_found', 404],
  conflict: ['conflict', 409],
  unauthenticated: ['invalid_argument', 401],
  precondition_failed: ['precondition_failed', 412],
  forbidden: ['forbidden', 403],
};

export function operationProblem(error: OperationError): Problem {
  const [code, status] = STATUS[error.code];
  return { code, status, detail: error.message, errors: error.fields };
}

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('Stable error code'),
    requestId: z.string().describe('The id of this request in our logs (X-Request-Id)'),
    errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional(),
  })
  .describe('RFC 9457 problem details');
const bearerErrorSchema = z
  .object({ error: z.string(), error_description: z.string(), scope: z.string().optional() })
  .describe('RFC 6750 bearer error; see WWW-Authenticate');

// Documented under the media types they are sent with, so a client that checks Content-Type against the
// document finds problems as application/problem+json. 401 and 403 come from the bearer check (RFC 6750
// JSON beside WWW-Authenticate) or, for a refusal by an operation's own rule, as a problem.
const PROBLEM = {
  description: 'RFC 9457 problem details',
  content: { 'application/problem+json': { schema: problemSchema } },
};
const BEARER_OR_PROBLEM = {
  description: 'An RFC 6750 bearer error from the token check, or a problem from the operation',
  content: { 'application/json': { schema: bearerErrorSchema }, 'application/problem+json': { schema: problemSchema } },
};

/** `{id}` path parameters of an operation, in order. */
function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** A family tag from the path (`/courses/{id}/publish` -> courses), grouping operations in the document. */
function family(path: string): string {
  return path.split('/')[1] ?? 'admin';
}

function routeSchema(operation: Operation, method: string, path: string) {
  const params = pathParameters(path);
  // zod types a mask by literal keys; these keys come from the path at run time.
  const mask = Object.fromEntries(params.map((p) => [p, true])) as never;
  const rest = operation.input.omit(mask);
  const status = operation.rest?.status ?? 200;
  return {
    operationId: operation.name,
    summary: operation.title,
    description: operation.description,
    tags: [`operator: ${family(path)}`],
    security: [{ oauth2: [...operation.scopes] }],
    ...(params.length > 0 ? { params: operation.input.pick(mask) } : {}),
    // An upload's body is the file (documented by docs.ts as binary per media type), not the input.
    ...(method === 'GET' || method === 'DELETE' ? { querystring: rest } : operation.rest?.upload ? {} : { body: rest }),
    response: { [status]: operation.output, 401: BEARER_OR_PROBLEM, 403: BEARER_OR_PROBLEM, '4xx': PROBLEM, '5xx': PROBLEM },
  };
}

/** Path parameters only: the input of the resource's read, for an If-Match check. */
function pathInput(route: RestRoute, params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(pathParameters(route.path).map((name) => [name, params[name] ?? '']));
}

/** The If-Match precondition of a write on a resource: its current representation must carry the tag. */
function ifMatchPrecondition(request: FastifyRequest, route: RestRoute): RunOptions['precondition'] {
  const header = request.headers['if-match'];
  const resource = route.resource?.();
  if (header === undefined || !resource || route.method === 'GET') return undefined;
  const params = pathInput(route, request.params as Record<string, string>);
  return async (ctx) => {
    const current = etagOf(await resource.run(ctx, params));
    if (!ifMatchHolds(header, current))
      throw new OperationError(
        'precondition_failed',
        `The resource has changed since it was read: If-Match ${header} does not match its current ETag ${current}. Read it again and retry.`,
      );
  };
}

type Outcome = { status: number; body: Record<string, unknown>; problem: boolean };

/** The JSON body of a request to an operation, refused when it is not an object of the operation's fields. */
function jsonBody(
  operation: Operation,
  route: RestRoute,
  request: FastifyRequest,
): { ok: true; body: Record<string, unknown> | undefined } | { ok: false; problem: Problem } {
  // An action (POST /courses/{id}/publish) may come without a body at all.
  const body = request.body === null || request.body === '' ? undefined : request.body;
  // Fastify also parses forms (for the OAuth endpoints); this API speaks JSON only.
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (body !== undefined && type !== 'application/json')
    return { ok: false, problem: { code: 'unsupported_media_type', status: 415, detail: 'Send the body as application/json.' } };
  if (body === undefined) return { ok: true, body: undefined };
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, problem: { code: 'invalid_argument', status: 400, detail: 'The body must be a JSON object.' } };
  // A field the operation does not take would otherwise be dropped in silence (a PATCH that changes
  // nothing and says 200): name it instead. Path parameters come from the path, never from the body.
  const accepted = new Set(Object.keys(operation.input.shape).filter((k) => !pathParameters(route.path).includes(k)));
  const unknown = Object.keys(body).filter((k) => !accepted.has(k));
  if (unknown.length > 0)
    return {
      ok: false,
      problem: {
        code: 'invalid_argument',
        status: 400,
        detail: `${operation.name} takes no ${unknown.map((k) => `"${k}"`).join(', ')}. It takes: ${[...accepted].join(', ') || 'no body fields'}.`,
        errors: unknown.map((k) => ({ pointer: `/${k}`, detail: 'not a field of this operation' })),
      },
    };
  return { ok: true, body: body as Record<string, unknown> };
}

async function runOperation(services: Services, operation: Operation, request: FastifyRequest, reply: FastifyReply) {
  const route = operation.rest as RestRoute;
  const guard = await guardBearer(services.bearer, request, reply, operation.scopes);
  if (!guard.ok) {
    if (!guard.unavailable) return reply;
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return sendProblem(reply, { code: 'unavailable', status: 503, detail: 'The token store did not answer in time. Retry in a moment.' });
  }
  services.usage.record(guard.token, [`api:${operation.name}`], route.method !== 'GET');
  // CONTRACT 6 throttling: counted per client per site, shared across nodes like every budget.
  await services.throttle.take(
    { name: 'operator-api', limit: services.config.platform.limits.operator_rate_per_minute, windowSeconds: 60 },
    `${request.site.id}:${guard.token.clientId}`,
  );
  let body: Record<string, unknown> | undefined;
  // A file upload: stored as it streams in; what was stored is the operation's input (and, without the
  // place it was stored, what an Idempotency-Key is bound to). Whatever does not end in an asset row is removed.
  let staged: StagedUpload | undefined;
  if (route.upload) {
    const result = await stageUpload(services.assets, request, request.site.id, services.config.platform.storage.max_upload_bytes);
    // A refused upload may be unread (too large, wrong type): close the connection rather than read on.
    if (!result.ok) return sendProblem(request.raw.complete ? reply : reply.header('connection', 'close'), result.problem);
    staged = result.upload;
    body = { mediaType: staged.mediaType, size: staged.size, sha256: staged.sha256 };
  } else {
    const parsed = jsonBody(operation, route, request);
    if (!parsed.ok) return sendProblem(reply, parsed.problem);
    body = parsed.body;
  }
  const discardUpload = async () => {
    if (staged) await services.assets.remove(staged.key).catch(() => undefined);
  };
  const input = {
    ...queryInput(operation.input, request.query as Record<string, string | string[]>),
    ...body,
    ...(staged ? { stagedKey: staged.key } : {}),
    ...(request.params as Record<string, string>),
  };
  const ctx: OperationContext = {
    db: services.db,
    site: request.site,
    clock: services.clock,
    personId: guard.token.personId,
    scopes: guard.token.scopes,
    clientId: guard.token.clientId,
    requestId: request.id,
    flushPeople: () => services.signals.publish({ kind: 'flush' }),
    assets: services.assets,
    catalogue: services.catalogue,
    learning: services.learning,
  };

  const keyHeader = request.headers['idempotency-key'];
  const key = route.method === 'POST' && keyHeader !== undefined ? String(keyHeader) : undefined;
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    await discardUpload();
    return sendProblem(reply, {
      code: 'invalid_argument',
      status: 400,
      detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    });
  }
  const scope = key === undefined ? undefined : { siteId: request.site.id, clientId: guard.token.clientId, key };
  if (scope) {
    const claim = await claimKey(services.db, scope, requestFingerprint(route.method, request.url, body), services.clock.now());
    if (claim.kind !== 'claimed') await discardUpload();
    switch (claim.kind) {
      case 'mismatch':
        return sendProblem(reply, {
          code: 'idempotency_key_reused',
          status: 422,
          detail: 'This Idempotency-Key was used with another request in the last 24 hours. Use a new key for a new request.',
        });
      case 'in_progress':
        return sendProblem(reply, {
          code: 'conflict',
          status: 409,
          detail: 'The first request with this Idempotency-Key is still running. Retry shortly.',
        });
      case 'replay': {
        const replayed = JSON.parse(claim.body) as Record<string, unknown>;
        const problem = claim.status >= 400;
        return send(reply.header('idempotent-replayed', 'true'), route, { status: claim.status, body: replayed, problem });
      }
      case 'claimed':
        break;
    }
  }

  let outcome: Outcome;
  try {
    const status = route.status ?? 200;
    const output = await operation.run(ctx, input, {
      precondition: ifMatchPrecondition(request, route),
      // The answer is kept in the write's own transaction: a crash cannot leave a write without it.
      committing: scope ? (inner, result) => completeKey(inner.db, scope, status, JSON.stringify(result)) : undefined,
    });
    outcome = { status, body: output, problem: false };
  } catch (error) {
    await discardUpload();
    if (!(error instanceof OperationError)) {
      if (scope) await releaseKey(services.db, scope).catch(() => undefined);
      throw error;
    }
    const problem = operationProblem(error);
    outcome = { status: problem.status, body: problemDocument(problem, request.id), problem: true };
    // A refusal is an answer too: the same request with the same key is refused the same way.
    if (scope) await completeKey(services.db, scope, outcome.status, JSON.stringify(outcome.body));
  }

  // Reads of a resource answer 304 when the client's copy is current (RFC 9110 13.1.2).
  const noneMatch = request.headers['if-none-match'];
  if (route.method === 'GET' && route.resource && !outcome.problem && noneMatch !== undefined) {
    const tag = etagOf(outcome.body);
    if (ifNoneMatchHits(noneMatch, tag)) return reply.code(304).header('etag', tag).header('cache-control', 'no-store').send();
  }
  return send(reply, route, outcome);
}

/** The answer's headers, set on the reply; answers its body, which Fastify sends (http/turn-end-writes.ts says why). */
function send(reply: FastifyReply, route: RestRoute, outcome: Outcome): unknown {
  reply.code(outcome.status).header('cache-control', 'no-store');
  if (outcome.problem) {
    reply.type('application/problem+json');
    return outcome.body;
  }
  // The representation of a resource carries its tag, after a write as after a read.
  if (route.resource && route.method !== 'DELETE') reply.header('etag', etagOf(outcome.body));
  reply.type('application/json; charset=utf-8');
  return outcome.body;
}

/** Registers every REST operation; call inside a plugin with prefix ADMIN_API_BASE. */
export function registerAdminApiRoutes(admin: FastifyInstance, services: Services): void {
  admin.setNotFoundHandler((request, reply) => {
    // A path some operation serves under another method: 405 with Allow (RFC 9110 15.5.6), not "no such path".
    const allowed = allowedMethods(admin, request);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, { code: 'method_not_allowed', status: 405, detail: `This path takes ${allowed.join(', ')}.` });
    }
    return sendProblem(reply, { code: 'not_found', status: 404, detail: 'No operator API operation has this method and path.' });
  });
  const register = (scope: FastifyInstance, operation: Operation) => {
    const route = operation.rest as RestRoute;
    scope.route({
      method: route.method,
      url: route.path.replace(/\{(\w+)\}/g, ':$1'),
      schema: routeSchema(operation, route.method, route.path),
      // Operations validate their own input (one place, shared with MCP); query strings are coerced first.
      validatorCompiler: () => (data) => ({ value: data }),
      config: { kind: 'problem' },
      handler: (request, reply) => runOperation(services, operation, request, reply),
    });
  };
  for (const operation of REST_OPERATIONS) if (operation.rest && !operation.rest.upload) register(admin, operation);
  const uploads = REST_OPERATIONS.filter((op) => op.rest?.upload);
  // Uploads get the raw request stream: no parser reads (or buffers) their body before stageUpload does.
  admin.register(async (files) => {
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const operation of uploads) register(files, operation);
  });
}
