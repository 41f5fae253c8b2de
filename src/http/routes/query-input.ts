// Query parameters arrive as strings; an operation's input schema (shared with MCP, where JSON carries
// numbers and booleans) says which fields are numbers or booleans. Coerce exactly those, leaving anything
// that is not a clean number or boolean as it came, so the operation's own validation names the field.
import type { z } from 'zod';

type Kind = 'number' | 'boolean' | 'array' | 'other';

function kindOf(schema: z.ZodType): Kind {
  let current: z.ZodType = schema;
  // Unwrap optional(), nullable(), default() and the like down to the value's own type.
  for (let i = 0; i < 8; i++) {
    const def = current.def as { type: string; innerType?: z.ZodType };
    if (def.type === 'number' || def.type === 'int') return 'number';
    if (def.type === 'boolean') return 'boolean';
    if (def.type === 'array') return 'array';
    if (!def.innerType) return 'other';
    current = def.innerType;
  }
  return 'other';
}

function coerce(kind: Kind, value: string): unknown {
  if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (kind === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export function queryInput(input: z.ZodObject, query: Record<string, string | string[]> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!query) return out;
  const shape = input.shape as Record<string, z.ZodType>;
  for (const [key, raw] of Object.entries(query)) {
    const field = shape[key];
    const kind = field ? kindOf(field) : 'other';
    if (kind === 'array') out[key] = Array.isArray(raw) ? raw : [raw];
    else {
      // A repeated scalar parameter is ambiguous: keep the list so validation refuses it.
      out[key] = Array.isArray(raw) ? raw : coerce(kind, raw);
    }
  }
  return out;
}
