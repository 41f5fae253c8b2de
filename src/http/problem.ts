// RFC 9457 problem details: how the operator API (CONTRACT 6) answers every error other than the bearer
// challenges of RFC 6750. Each answer carries a stable `code` a program can branch on; `type` names it as
// a URN, so nothing we print points at a host we do not configure.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldProblem } from '../operations/operation.js';

export type ProblemCode =
  | 'invalid_argument'
  | 'invalid_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'forbidden'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

const TITLES: Record<ProblemCode, string> = {
  invalid_argument: 'The request is not valid',
  invalid_json: 'The body is not valid JSON',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'The body is too large',
  not_found: 'Not found',
  forbidden: 'Not allowed',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  precondition_failed: 'The resource has changed',
  idempotency_key_reused: 'The Idempotency-Key was used with another request',
  rate_limited: 'Too many requests',
  internal: 'Something went wrong on our side',
  unavailable: 'Temporarily unavailable',
};

export interface Problem {
  code: ProblemCode;
  status: number;
  detail: string;
  errors?: readonly FieldProblem[];
}

export function problemType(code: ProblemCode): string {
  return `urn:schoolgate:problem:${code}`;
}

/** The problem+json document of a problem, naming the request it answers. */
export function problemDocument(problem: Problem, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: problemType(problem.code),
    title: TITLES[problem.code],
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    // An extension member (RFC 9457 3.2): the id under which this request's log lines are found.
    requestId,
  };
  if (problem.errors && problem.errors.length > 0) body.errors = problem.errors;
  return body;
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply
    .code(problem.status)
    .header('cache-control', 'no-store')
    .type('application/problem+json')
    .send(problemDocument(problem, reply.request.id));
}

/** Framework errors (body parsing, limits, throttling) of an operator API route, as problems; never a stack. */
export function frameworkProblem(error: FastifyError, request: FastifyRequest): Problem {
  const status = error.statusCode ?? 500;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', status: 413, detail: 'The request body is larger than this API accepts.' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported_media_type', status: 415, detail: 'Send the body as application/json.' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'invalid_json', status: 400, detail: 'The body is not valid JSON.' };
  }
  if (status === 429) return { code: 'rate_limited', status, detail: 'Too many requests; retry after the time in Retry-After.' };
  if (status >= 400 && status < 500) return { code: 'invalid_argument', status: 400, detail: 'The request is malformed.' };
  request.log.error({ err: error }, 'operator api fault');
  return { code: 'internal', status: 500, detail: 'The request could not be completed because of a fault on our side. Try again.' };
}
