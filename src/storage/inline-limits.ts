// SQLite (3.53 here) plans LIMIT and OFFSET with their values: a bound `limit ?` marks the statement as
// depending on that parameter, and every new binding, even of the same value, makes SQLite parse and plan
// the statement again before it runs (sqlite3Reprepare on every step). A member's first page of
// enrolments took 60 µs that way and 30 µs with the number written into the SQL. This plugin, installed
// on SQLite only, writes integer LIMIT and OFFSET values into the SQL text; the statement cache then keeps
// one prepared statement per page size. Precompiled queries (storage/precompiled.ts) learn this way which
// of their parameters must be written in: their placeholder turns into a literal here too.
import {
  type KyselyPlugin,
  type LimitNode,
  type OffsetNode,
  type OperationNode,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  ValueNode,
} from 'kysely';

/** A value precompiled queries use to stand for one of their parameters (storage/precompiled.ts). */
function isParameterSentinel(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SENTINEL_PREFIX);
}
export const SENTINEL_PREFIX = '\u0000param:';

function written(node: OperationNode): OperationNode {
  if (!ValueNode.is(node) || node.immediate) return node;
  const { value } = node;
  if ((typeof value === 'number' && Number.isSafeInteger(value)) || isParameterSentinel(value)) return ValueNode.createImmediate(value);
  return node;
}

class LimitWriter extends OperationNodeTransformer {
  protected override transformLimit(node: LimitNode, queryId?: QueryId): LimitNode {
    const transformed = super.transformLimit(node, queryId);
    return { ...transformed, limit: written(transformed.limit) };
  }

  protected override transformOffset(node: OffsetNode, queryId?: QueryId): OffsetNode {
    const transformed = super.transformOffset(node, queryId);
    return { ...transformed, offset: written(transformed.offset) };
  }
}

export class InlineLimitsPlugin implements KyselyPlugin {
  private readonly writer = new LimitWriter();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.writer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
