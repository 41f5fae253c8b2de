// The operator REST API (SPEC 4.4, CONTRACT 6): one generic door that walks the operation registry and
// gives each operator operation its method and path under /api/admin/v1. The bearer, scope and role
// checks are the ones every resource uses (bearer-guard.ts, oauth/standing.ts); errors other than the
// bearer challenges are RFC 9457 problems. No route here knows any one operation.
import { STORE_RETRY_AFTER_SECONDS } from '../../storage/store-faults.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Operation, type OperationContext, OperationError, type OperationErrorCode } from '../../operations/operation.js';
import { REST_OPERATIONS } from '../../operations/registry.js';
import type { Services } from '../../services.js';
import { guardBearer } from '../bearer-guard.js';
import { type Problem, type ProblemCode, sendProblem } from '../problem.js';
import { queryInput } from './query-input.js';

export const ADMIN_API_BASE = '/api/admin/v1';

const STATUS: Record<OperationErrorCode, [ProblemCode, number]> = {
  invalid_argument: ['invalid_argument', 400],
  not_found: ['not_found', 404],
  conflict: ['conflict', 409],
  unauthenticated: ['invalid_argument', 401],
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
    ...(method === 'GET' || method === 'DELETE' ? { querystring: rest } : { body: rest }),
    response: { [status]: operation.output, 401: bearerErrorSchema, 403: bearerErrorSchema, '4xx': problemSchema, '5xx': problemSchema },
  };
}

async function runOperation(services: Services, operation: Operation, request: FastifyRequest, reply: FastifyReply) {
  const guard = await guardBearer(services.bearer, request, reply, operation.scopes);
  if (!guard.ok) {
    if (!guard.unavailable) return reply;
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return sendProblem(reply, { code: 'unavailable', status: 503, detail: 'The token store did not answer in time. Retry in a moment.' });
  }
  const body = request.body;
  // Fastify also parses forms (for the OAuth endpoints); this API speaks JSON only.
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (body !== undefined && type !== 'application/json') {
    return sendProblem(reply, { code: 'unsupported_media_type', status: 415, detail: 'Send the body as application/json.' });
  }
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    return sendProblem(reply, { code: 'invalid_argument', status: 400, detail: 'The body must be a JSON object.' });
  }
  const input = {
    ...queryInput(operation.input, request.query as Record<string, string | string[]>),
    ...(body as Record<string, unknown> | undefined),
    ...(request.params as Record<string, string>),
  };
  const ctx: OperationContext = {
    db: services.db,
    site: request.site,
    clock: services.clock,
    personId: guard.token.personId,
    scopes: guard.token.scopes,
  };
  try {
    const output = await operation.run(ctx, input);
    return reply
      .code(operation.rest?.status ?? 200)
      .header('cache-control', 'no-store')
      .send(output);
  } catch (error) {
    if (error instanceof OperationError) return sendProblem(reply, operationProblem(error));
    throw error;
  }
}

/** Registers every REST operation; call inside a plugin with prefix ADMIN_API_BASE. */
export function registerAdminApiRoutes(admin: FastifyInstance, services: Services): void {
  admin.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, { code: 'not_found', status: 404, detail: 'No operator API operation has this method and path.' }),
  );
  for (const operation of REST_OPERATIONS) {
    const route = operation.rest;
    if (!route) continue;
    admin.route({
      method: route.method,
      url: route.path.replace(/\{(\w+)\}/g, ':$1'),
      schema: routeSchema(operation, route.method, route.path),
      // Operations validate their own input (one place, shared with MCP); query strings are coerced first.
      validatorCompiler: () => (data) => ({ value: data }),
      config: { kind: 'problem' },
      handler: (request, reply) => runOperation(services, operation, request, reply),
    });
  }
}
