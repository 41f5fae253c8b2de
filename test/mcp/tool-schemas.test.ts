// The tools' schemas as the MCP SDK receives them (src/mcp/mcp-server.ts): copies of the operations' schemas
// that zod parses on its synchronous (compiled) path even when the SDK asks for an asynchronous parse. The
// copies must keep every rule and describe themselves in tools/list exactly as the operations' schemas do.
import { safeParseAsync } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parsedSynchronously } from '../../src/mcp/mcp-server.js';
import { OPERATIONS } from '../../src/operations/registry.js';

const enrollment = z.object({
  courseId: z.string().min(1),
  expiresAt: z.string().datetime().nullable(),
  progress: z.number().int().min(0).max(100),
  lastLecture: z.object({ id: z.string(), seconds: z.number().nonnegative() }).optional(),
});
const page = z.object({ items: z.array(enrollment).max(3), total: z.number().int(), nextCursor: z.string().nullable() });

const good = {
  items: [
    { courseId: 'crs_1', expiresAt: null, progress: 40, lastLecture: { id: 'lec_1', seconds: 12.5 } },
    { courseId: 'crs_2', expiresAt: '2026-12-01T00:00:00Z', progress: 100 },
  ],
  total: 2,
  nextCursor: null,
};
const bad: unknown[] = [
  { ...good, total: 2.5 },
  { ...good, nextCursor: undefined },
  { ...good, items: [{ ...good.items[0], progress: 101 }] },
  { ...good, items: [{ ...good.items[0], lastLecture: { id: 'lec_1', seconds: -1 } }] },
  { ...good, items: [{ ...good.items[1], expiresAt: 'tomorrow' }] },
  { ...good, items: [...good.items, ...good.items] },
  { ...good, items: 'none' },
  null,
];

describe('tool schemas handed to the MCP SDK', () => {
  it('accept and refuse exactly what the operation’s schema does, with the same issues, through the SDK’s asynchronous parse', async () => {
    const copy = parsedSynchronously(page);
    const original = await safeParseAsync(page, good);
    expect(original.success).toBe(true);
    expect(await safeParseAsync(copy, good)).toEqual(original);
    for (const value of bad) {
      const expected = await safeParseAsync(page, value);
      expect(expected.success, JSON.stringify(value)).toBe(false);
      const actual = await safeParseAsync(copy, value);
      expect(actual.success, JSON.stringify(value)).toBe(false);
      expect(actual).toEqual(expected);
    }
  });

  it('run zod’s synchronous parse when the SDK asks for an asynchronous one, and leave the operation’s schema as it was', async () => {
    const total = z.number().int();
    const counted = z.object({ total });
    const copy = parsedSynchronously(counted);
    // The field's parser is shared by both objects; what it is handed says which path its object took.
    const seen: Array<boolean | undefined> = [];
    const run = total._zod.run;
    total._zod.run = (payload, ctx) => {
      seen.push(ctx.async);
      return run(payload, ctx);
    };
    await safeParseAsync(counted, { total: 1 });
    await safeParseAsync(copy, { total: 1 });
    expect(seen).toEqual([true, false]);
    expect(counted._zod.run).not.toBe(copy._zod.run);
  });

  it('refuse, rather than skip, an asynchronous refinement (none of the operations holds one)', async () => {
    const refined = parsedSynchronously(z.object({ name: z.string().refine(async (name) => name.length > 0) }));
    await expect(safeParseAsync(refined, { name: 'x' })).rejects.toThrow();
  });

  it('describe every operation’s input and output in tools/list exactly as the operation’s own schemas do', () => {
    for (const operation of OPERATIONS) {
      for (const schema of [operation.input, operation.output]) {
        for (const pipeStrategy of ['input', 'output'] as const) {
          expect(toJsonSchemaCompat(parsedSynchronously(schema), { strictUnions: true, pipeStrategy }), operation.name).toEqual(
            toJsonSchemaCompat(schema, { strictUnions: true, pipeStrategy }),
          );
        }
      }
    }
  });
});
