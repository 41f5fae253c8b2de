// Query limits of the member API (SPEC 8 leaves them open; issue 3 asks for depth and cost limits):
// validation rules for graphql `validate()`, so an over-limit query is refused before any resolver runs.
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  getNamedType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  specifiedRules,
  type ValidationContext,
  type ValidationRule,
  valueFromASTUntyped,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../school/paging.js';

/** Deepest field nesting an operation may have, counting the root field as 1. */
export const MAX_QUERY_DEPTH = 8;
/** Highest cost an operation may have (see costLimitRule for how cost is counted). */
export const MAX_QUERY_COST = 5000;
/** Cost of one selected field. */
export const FIELD_COST = 1;

function operationName(node: OperationDefinitionNode): string {
  return node.name ? `Operation "${node.name.value}"` : 'The operation';
}

/**
 * Refuses an operation nested deeper than MAX_QUERY_DEPTH (fragments expanded). Introspection fields
 * (`__schema`, `__type`) are not counted: the standard introspection query alone is 13 deep, and graphql's
 * own MaxIntrospectionDepthRule (in specifiedRules) already stops the self-nesting introspection queries.
 */
export const depthLimitRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  // Memoised per fragment, so a document that spreads one fragment many times is measured in linear time.
  const memo = new Map<string, number>();
  const depthOf = (selectionSet: SelectionSetNode, visiting: Set<string>): number => {
    let deepest = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        deepest = Math.max(deepest, 1 + (selection.selectionSet ? depthOf(selection.selectionSet, visiting) : 0));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, depthOf(selection.selectionSet, visiting));
      } else {
        const name = selection.name.value;
        const fragment = context.getFragment(name);
        // A cycle is reported by NoFragmentCyclesRule; here it only must not recurse forever.
        if (!fragment || visiting.has(name)) continue;
        let known = memo.get(name);
        if (known === undefined) {
          visiting.add(name);
          known = depthOf(fragment.selectionSet, visiting);
          visiting.delete(name);
          memo.set(name, known);
        }
        deepest = Math.max(deepest, known);
      }
    }
    return deepest;
  };
  return {
    OperationDefinition(node) {
      const depth = depthOf(node.selectionSet, new Set());
      if (depth > MAX_QUERY_DEPTH) {
        context.reportError(
          new GraphQLError(`${operationName(node)} is nested ${depth} levels deep; the maximum depth is ${MAX_QUERY_DEPTH}.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: MAX_QUERY_DEPTH },
          }),
        );
      }
    },
  };
};

/** The page size a connection field asks for, as the cost rule counts it (the worst case when unknown). */
function requestedPageSize(
  field: FieldNode,
  definition: GraphQLField<unknown, unknown>,
  operation: OperationDefinitionNode,
  variableValues: Readonly<Record<string, unknown>> | undefined,
): number {
  const argument = field.arguments?.find((a) => a.name.value === 'first');
  let value: unknown;
  if (!argument) {
    value = definition.args.find((a) => a.name === 'first')?.defaultValue ?? DEFAULT_PAGE_SIZE;
  } else if (argument.value.kind === Kind.VARIABLE) {
    const name = argument.value.name.value;
    if (variableValues && name in variableValues) {
      value = variableValues[name];
    } else {
      const declared = operation.variableDefinitions?.find((v) => v.variable.name.value === name)?.defaultValue;
      value = declared ? valueFromASTUntyped(declared) : MAX_PAGE_SIZE;
    }
  } else {
    value = valueFromASTUntyped(argument.value);
  }
  if (value === null || value === undefined) return DEFAULT_PAGE_SIZE;
  // Out-of-range values are refused at execution with their own message; here they count as the maximum.
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_PAGE_SIZE ? value : MAX_PAGE_SIZE;
}

/** Connection fields are those taking `first`; their `nodes` and `edges` repeat once per requested item. */
const REPEATED_CHILDREN = new Set(['nodes', 'edges']);

/**
 * Refuses an operation costing more than MAX_QUERY_COST. Every selected field costs FIELD_COST; inside a
 * connection field (one with a `first` argument) the `nodes` and `edges` selections count `first` times.
 * Pass the request's variables so `first: $n` is counted at its real value; unknown variables count as the
 * largest page.
 */
export function costLimitRule(variableValues?: Readonly<Record<string, unknown>>): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const schema = context.getSchema();
    return {
      OperationDefinition(operation) {
        const memo = new Map<string, number>();
        // `repeat` is the page size when the selection set belongs to a connection field, else 1.
        const costOf = (
          selectionSet: SelectionSetNode,
          parent: GraphQLNamedType | undefined,
          visiting: Set<string>,
          repeat: number,
        ): number => {
          let total = 0;
          for (const selection of selectionSet.selections) {
            if (selection.kind === Kind.FIELD) {
              const definition = parent && isObjectType(parent) ? parent.getFields()[selection.name.value] : undefined;
              let cost = FIELD_COST;
              if (selection.selectionSet) {
                const child = definition ? getNamedType(definition.type) : undefined;
                const isConnection = definition?.args.some((a) => a.name === 'first') ?? false;
                const size = isConnection && definition ? requestedPageSize(selection, definition, operation, variableValues) : 1;
                cost += costOf(selection.selectionSet, child, visiting, size);
              }
              total += REPEATED_CHILDREN.has(selection.name.value) ? repeat * cost : cost;
            } else if (selection.kind === Kind.INLINE_FRAGMENT) {
              const typed = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
              total += costOf(selection.selectionSet, typed ?? undefined, visiting, repeat);
            } else {
              const name = selection.name.value;
              const fragment: FragmentDefinitionNode | null | undefined = context.getFragment(name);
              // A cycle is reported by NoFragmentCyclesRule; here it only must not recurse forever.
              if (!fragment || visiting.has(name)) continue;
              const key = `${name}:${repeat}`;
              let known = memo.get(key);
              if (known === undefined) {
                visiting.add(name);
                known = costOf(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined, visiting, repeat);
                visiting.delete(name);
                memo.set(key, known);
              }
              total += known;
            }
          }
          return total;
        };
        const root = schema.getRootType(operation.operation) ?? undefined;
        const cost = costOf(operation.selectionSet, root, new Set(), 1);
        if (cost > MAX_QUERY_COST) {
          context.reportError(
            new GraphQLError(
              `${operationName(operation)} costs ${cost}, above the maximum of ${MAX_QUERY_COST}: ask for fewer items with a smaller "first", or fewer fields.`,
              { nodes: [operation], extensions: { code: 'QUERY_TOO_COSTLY', cost, maxCost: MAX_QUERY_COST } },
            ),
          );
        }
      },
    };
  };
}

/** graphql's standard rules plus the depth and cost limits: what `validate()` runs on every member API request. */
export function memberValidationRules(variableValues?: Readonly<Record<string, unknown>>): ValidationRule[] {
  return [...specifiedRules, depthLimitRule, costLimitRule(variableValues)];
}
