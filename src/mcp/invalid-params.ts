// Requests whose params do not fit their method (JSON-RPC 2.0 section 5.1: -32602 Invalid params). The SDK
// (1.32) parses a request's params with its method's schema as it dispatches the request, and lets the
// failure out as a bare ZodError, which it answers -32603 Internal error with the issue list as the message
// (modelcontextprotocol/typescript-sdk#2284, open): the caller is told the server broke, not that its
// request was wrong. Only answers of -32603 are looked at again, so a valid request costs nothing more.
import { ClientRequestSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** Each client request method's schema, as the SDK dispatches it. */
const SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/**
 * Why `request`'s params do not fit its method's schema, worded for the caller (each field as a dotted path),
 * or undefined when they fit or the method is not one the schema knows.
 */
export function invalidParams(request: JSONRPCRequest): string | undefined {
  const schema = SCHEMAS.get(request.method);
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse({ method: request.method, params: request.params });
  if (parsed.success) return undefined;
  const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
  return `Invalid params for ${request.method}: ${issues.join('; ')}`;
}
