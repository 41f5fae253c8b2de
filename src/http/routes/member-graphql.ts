// The member GraphQL API over HTTP (SPEC 4.3, 5.3, 5.4, 7; issue 3): `POST {graphql_path}` with a bearer
// token, `/member/graphql` on variant A sites and `/account/graphql` on variant B sites.
//
// Served with Mercurius rather than GraphQL Yoga: it is a Fastify plugin, so Fastify's own body parsing,
// body limit, hooks and error handling apply unchanged; it executes with graphql-js, so the schema and the
// validation rules of src/member-api run as their tests run them; and registered inside an encapsulated
// scope it holds one schema per variant. Its own routes and GraphiQL are off: this file owns the route, so
// the bearer check, the scope check and every HTTP status stay ours. The route parses and validates each
// query text once (member-api/prepared-documents.ts, the cost limit per request when variables can change
// it), and Mercurius's own cache keyed by the same text then skips its parse and validation. Documents are
// compiled with graphql-jit from their first use (`jit: 1`): about 6% less CPU per viewer query, measured
// in-process with inject, most of the rest being the database and Fastify.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../../storage/store-faults.js';
import { type ExecutionResult, GraphQLError, type GraphQLFormattedError } from 'graphql';
import mercurius, { type MercuriusContext } from 'mercurius';
import { createMemberContext } from '../../member-api/context.js';
import { depthLimitRule } from '../../member-api/limits.js';
import { PREPARED_DOCUMENTS_KEPT, preparedDocuments } from '../../member-api/prepared-documents.js';
import { requiredScopes } from '../../member-api/required-scopes.js';
import { memberSchema } from '../../member-api/schema.js';
import { type BearerToken, requireScopes } from '../../oauth/bearer.js';
import type { Services } from '../../services.js';
import { type Variant, variantCapabilities } from '../../sites/site.js';
import { guardBearer, sendInsufficientScope } from '../bearer-guard.js';
import { answerAsUnknownPath } from '../not-found.js';

/** Largest request body the member API reads: a query document with its variables needs far less. */
export const MEMBER_GRAPHQL_BODY_LIMIT = 64 * 1024;

/** A GraphQL request as the body carries it (GraphQL over HTTP, JSON encoding). */
interface GraphqlRequest {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

/** The bearer token found valid by the onRequest hook, for the handler of the same request. */
const verifiedTokens = new WeakMap<FastifyRequest, BearerToken>();

function sendErrors(reply: FastifyReply, status: number, errors: readonly GraphQLFormattedError[]): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ errors });
}

function requestError(message: string, code: string): GraphQLFormattedError {
  return { message, extensions: { code } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `{ query, variables?, operationName? }`; anything else is a request error with a clear message. */
function readGraphqlRequest(body: unknown): { ok: true; request: GraphqlRequest } | { ok: false; error: GraphQLFormattedError } {
  if (Array.isArray(body)) {
    // Batching is off (issue 3): one operation per request keeps the limits and the scope check per operation.
    return {
      ok: false,
      error: requestError(
        'Batched queries are not supported: send one GraphQL operation per request, as a JSON object rather than an array.',
        'BATCHING_NOT_SUPPORTED',
      ),
    };
  }
  if (!isPlainObject(body) || typeof body.query !== 'string' || body.query.trim() === '') {
    return {
      ok: false,
      error: requestError('The body must be a JSON object with a non-empty string "query".', 'BAD_REQUEST'),
    };
  }
  const { variables, operationName } = body;
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
    return { ok: false, error: requestError('"variables" must be a JSON object when given.', 'BAD_REQUEST') };
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return { ok: false, error: requestError('"operationName" must be a string when given.', 'BAD_REQUEST') };
  }
  return {
    ok: true,
    request: { query: body.query, variables: variables ?? undefined, operationName: operationName ?? undefined },
  };
}

interface MercuriusValidationError extends Error {
  code: 'MER_ERR_GQL_VALIDATION';
  errors: readonly GraphQLError[];
}

/** Mercurius throws this for variables that do not fit the operation (the route has validated the document). */
function isValidationError(error: unknown): error is MercuriusValidationError {
  return error instanceof Error && (error as Partial<MercuriusValidationError>).code === 'MER_ERR_GQL_VALIDATION';
}

const STORE_DOWN_MESSAGE = 'Temporarily unavailable: the service cannot reach its database. Retry after the time in Retry-After.';

/**
 * Errors raised while executing: a GraphQLError thrown on purpose (a bad `first`, an unknown notification)
 * keeps its message; anything else is a fault of ours, logged and shown without its detail. A result with
 * no `data` at all is a request error (for example an unknown operationName): 400, as with validation.
 */
function formatExecutionErrors<TContext extends MercuriusContext>(
  execution: ExecutionResult & Required<Pick<ExecutionResult, 'errors'>>,
  context: TContext,
): { statusCode: number; response: ExecutionResult | { data?: ExecutionResult['data']; errors: GraphQLFormattedError[] } } {
  let storeDown = false;
  const errors = execution.errors.map((error): GraphQLFormattedError => {
    if (error.originalError === undefined || error.originalError instanceof GraphQLError) return error.toJSON();
    const where = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
    if (isStoreUnavailable(error.originalError)) {
      storeDown = true;
      return { message: STORE_DOWN_MESSAGE, ...where, extensions: { code: 'UNAVAILABLE' } };
    }
    context.reply.log.error({ err: error.originalError }, 'member graphql resolver failed');
    return { message: 'Internal server error', ...where, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  });
  // The database went away mid-request: 503 with Retry-After, so a client retries rather than trusting partial data.
  if (storeDown) {
    context.reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return { statusCode: 503, response: { errors } };
  }
  const hasData = 'data' in execution;
  return { statusCode: hasData ? 200 : 400, response: hasData ? { data: execution.data, errors } : { errors } };
}

/** Framework errors on this route (wrong content type, body too large, broken JSON) as GraphQL errors. */
function renderFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode ?? 500;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendErrors(reply, 415, [
        requestError('Unsupported Content-Type: send the GraphQL request as application/json.', 'UNSUPPORTED_MEDIA_TYPE'),
      ]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendErrors(reply, 413, [
        requestError(`The request body is larger than ${MEMBER_GRAPHQL_BODY_LIMIT} bytes.`, 'PAYLOAD_TOO_LARGE'),
      ]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendErrors(reply, 400, [requestError('The body is not valid JSON.', 'BAD_REQUEST')]);
  }
  if (status >= 400 && status < 500) return sendErrors(reply, status, [requestError('This request cannot be used.', 'BAD_REQUEST')]);
  if (isStoreUnavailable(error)) {
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return sendErrors(reply, 503, [requestError(STORE_DOWN_MESSAGE, 'UNAVAILABLE')]);
  }
  request.log.error({ err: error }, 'member graphql request failed');
  return sendErrors(reply, 500, [requestError('Internal server error', 'INTERNAL_SERVER_ERROR')]);
}

/** One variant's endpoint, in its own scope: its Mercurius instance, JSON-only parsing, error rendering. */
async function registerVariantEndpoint(scope: FastifyInstance, services: Services, variant: Variant): Promise<void> {
  const path = variantCapabilities(variant).graphqlPath;
  const schema = memberSchema(variant);
  const prepare = preparedDocuments(schema);
  await scope.register(mercurius, {
    schema,
    routes: false,
    graphiql: false,
    // Reached only with documents the route has validated in full (cost included), so its cache by text is safe;
    // the depth rule is repeated so that Mercurius alone would never accept more than the route does.
    cache: PREPARED_DOCUMENTS_KEPT,
    validationRules: [depthLimitRule],
    allowBatchedQueries: false,
    jit: 1,
    errorFormatter: formatExecutionErrors,
  });

  // JSON only: the form and text parsers of the application do not apply here (415 instead).
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MEMBER_GRAPHQL_BODY_LIMIT },
    scope.getDefaultJsonParser('error', 'ignore'),
  );
  scope.setErrorHandler(renderFrameworkError);

  // The other variant's path does not exist at this site: the same 404 as any unknown path.
  const onlyThisVariant = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.site.variant !== variant) {
      answerAsUnknownPath(request, reply);
      return reply;
    }
  };

  // SPEC 5.4: no anonymous mode. The token is checked before the body is even read, so a caller without a
  // valid token learns nothing about the schema (not even whether its query parses).
  const validBearer = async (request: FastifyRequest, reply: FastifyReply) => {
    const guard = await guardBearer(services.bearer, request, reply, []);
    if (guard.ok) {
      verifiedTokens.set(request, guard.token);
      return;
    }
    // A store that gives no verdict is our fault, not the token's: retry, without a WWW-Authenticate challenge.
    if (guard.unavailable) {
      reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
      return sendErrors(reply, 503, [requestError(STORE_DOWN_MESSAGE, 'UNAVAILABLE')]);
    }
    return reply;
  };

  scope.post(
    path,
    {
      bodyLimit: MEMBER_GRAPHQL_BODY_LIMIT,
      // Introspection is this API's documentation (issue 3); /openapi.json serves every site, this path only some.
      schema: { hide: true },
      onRequest: [onlyThisVariant, validBearer],
    },
    async (request, reply) => {
      const token = verifiedTokens.get(request);
      if (!token) throw new Error('member graphql handler reached without a verified token');
      const read = readGraphqlRequest(request.body);
      if (!read.ok) return sendErrors(reply, 400, [read.error]);
      const { query, variables, operationName } = read.request;

      const preparation = prepare(query);
      if (!preparation.ok) return sendErrors(reply, 400, [preparation.syntaxError.toJSON()]);
      const { document, validationErrors } = preparation.prepared;
      // SPEC 4.3: queries need account:read, mutations account:write; the 403 names the scope.
      const scoped = requireScopes(token, requiredScopes(document, operationName));
      if (scoped.kind === 'insufficient_scope') return sendInsufficientScope(reply, request.site, scoped.scopes, scoped.description);
      const invalid = validationErrors(variables);
      if (invalid.length > 0)
        return sendErrors(
          reply,
          400,
          invalid.map((e) => e.toJSON()),
        );

      // Counted only once the document is valid: names in it are then the schema's own fields.
      services.usage.record(token, preparation.prepared.uses, preparation.prepared.writes);
      const siteId = request.site.id;
      const personId = token.personId;
      const context = createMemberContext(
        services.db,
        siteId,
        personId,
        token.scopes,
        services.clock.now(),
        async () => {
          const person = await services.people(siteId, personId);
          return person ? { id: person.id, name: person.name, email: person.email, pictureUrl: person.pictureUrl } : null;
        },
        services.learning,
      );
      let result: ExecutionResult;
      try {
        // The query text, not the document: Mercurius finds it in its cache, where a document would be deep-copied.
        result = await reply.graphql(query, context, variables, operationName);
      } catch (error) {
        if (isValidationError(error))
          return sendErrors(
            reply,
            400,
            error.errors.map((e) => e.toJSON()),
          );
        throw error;
      }
      // The payload, not the reply (http/turn-end-writes.ts says why).
      reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
      return result;
    },
  );

  // GET is not offered for now (issue 3), nor any other method: 405 names the one that is.
  scope.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: path,
    schema: { hide: true },
    onRequest: onlyThisVariant,
    handler: async (request, reply) => {
      reply.header('allow', 'POST');
      return sendErrors(reply, 405, [
        requestError(`${request.method} is not supported here: send the GraphQL request with POST and a JSON body.`, 'METHOD_NOT_ALLOWED'),
      ]);
    },
  });
}

/** Registers `POST {graphql_path}` for both variants; each site answers only at its own variant's path. */
export function registerMemberGraphqlRoutes(app: FastifyInstance, services: Services): void {
  for (const variant of ['A', 'B'] as const) {
    app.register(async (scope) => registerVariantEndpoint(scope, services, variant));
  }
}
