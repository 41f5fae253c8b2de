// Member API documents parsed and validated once per query text (SPEC 4.3; issue 3 limits). Apps send the
// same few queries over and over, and graphql's validation costs several times what executing a small query
// does; only the cost limit can depend on a request's variables, so only it is re-checked per request.
import { type DocumentNode, GraphQLError, type GraphQLSchema, Kind, specifiedRules, validate } from 'graphql';
import { parseBounded } from './document-limits.js';
import { costLimitRule, depthLimitRule } from './limits.js';
import { setBounded } from '../kernel/bounded-map.js';

/** How many distinct query texts are kept per schema; the oldest is dropped first. */
export const PREPARED_DOCUMENTS_KEPT = 256;
/** Longer query texts are prepared every time rather than kept (a bound on the memory the cache holds). */
export const PREPARED_DOCUMENT_MAX_CHARS = 16 * 1024;

export interface PreparedDocument {
  document: DocumentNode;
  /** graphql's rules, the depth limit, and the cost limit counted with these variables; empty when valid. */
  validationErrors(variables: Readonly<Record<string, unknown>> | undefined): readonly GraphQLError[];
  /** What a member's access log shows for this document: `graphql:viewer.enrollments`, `graphql:markNotificationRead`. */
  uses: readonly string[];
  /** Whether the document holds a mutation. */
  writes: boolean;
}

export type Preparation = { ok: true; prepared: PreparedDocument } | { ok: false; syntaxError: GraphQLError };

function declaresVariables(document: DocumentNode): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0);
}

/** The fields a document asks for at the top, and under `viewer` one level down (named, not aliased). */
function usesOf(document: DocumentNode): { uses: string[]; writes: boolean } {
  const uses = new Set<string>();
  let writes = false;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (definition.operation === 'mutation') writes = true;
    for (const top of definition.selectionSet.selections) {
      if (top.kind !== Kind.FIELD || top.name.value.startsWith('__')) continue;
      const children = top.name.value === 'viewer' ? (top.selectionSet?.selections ?? []) : [];
      const named = children.flatMap((c) => (c.kind === Kind.FIELD && !c.name.value.startsWith('__') ? [c.name.value] : []));
      if (named.length === 0) uses.add(`graphql:${top.name.value}`);
      for (const name of named) uses.add(`graphql:viewer.${name}`);
    }
  }
  return { uses: [...uses], writes };
}

function prepare(schema: GraphQLSchema, query: string): Preparation {
  let document: DocumentNode;
  try {
    document = parseBounded(query);
  } catch (error) {
    if (error instanceof GraphQLError) return { ok: false, syntaxError: error };
    throw error;
  }
  const ruleErrors = validate(schema, document, [...specifiedRules, depthLimitRule]);
  // Without variables the cost is a property of the text alone, so it is counted once with the rest.
  const fixedCost = declaresVariables(document) ? undefined : validate(schema, document, [costLimitRule()]);
  return {
    ok: true,
    prepared: {
      document,
      ...usesOf(document),
      validationErrors(variables) {
        if (ruleErrors.length > 0) return ruleErrors;
        return fixedCost ?? validate(schema, document, [costLimitRule(variables)]);
      },
    },
  };
}

/** A preparer for one schema: returns the same prepared document for the same query text while it is kept. */
export function preparedDocuments(schema: GraphQLSchema): (query: string) => Preparation {
  const kept = new Map<string, Preparation>();
  return (query) => {
    const known = kept.get(query);
    if (known) return known;
    const preparation = prepare(schema, query);
    if (query.length <= PREPARED_DOCUMENT_MAX_CHARS) setBounded(kept, query, preparation, PREPARED_DOCUMENTS_KEPT);
    return preparation;
  };
}
