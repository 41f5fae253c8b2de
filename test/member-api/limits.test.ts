// Query limits (issue 3: depth and cost, refused with clear GraphQL errors) and the scopes an operation needs
// (SPEC 4.3). Validation only: no database involved.
import { buildSchema, getIntrospectionQuery, type GraphQLSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { costLimitRule, depthLimitRule, MAX_QUERY_COST, MAX_QUERY_DEPTH, memberValidationRules } from '../../src/member-api/limits.js';
import { requiredScopes } from '../../src/member-api/required-scopes.js';
import { memberSchema } from '../../src/member-api/schema.js';

// A schema that nests without end, to reach any depth with real fields.
const nesting = buildSchema('type Query { node: Node } type Node { child: Node name: String }');

function nested(depth: number): string {
  // `node` is depth 1; each `child` adds one; `name` is the innermost field.
  return `{ node ${'{ child '.repeat(Math.max(0, depth - 2))}{ name }${' }'.repeat(Math.max(0, depth - 2))} }`;
}

function errorsOf(schema: GraphQLSchema, source: string, variables?: Record<string, unknown>): string[] {
  return validate(schema, parse(source), memberValidationRules(variables)).map((e) => e.message);
}

/** A selection of `count` aliased copies of a scalar field. */
function aliases(field: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');
}

describe('depth limit', () => {
  it(`accepts an operation nested ${MAX_QUERY_DEPTH} levels deep`, () => {
    expect(validate(nesting, parse(nested(MAX_QUERY_DEPTH)), [depthLimitRule])).toEqual([]);
  });

  it(`refuses an operation nested ${MAX_QUERY_DEPTH + 1} levels deep with a clear message`, () => {
    const errors = validate(nesting, parse(nested(MAX_QUERY_DEPTH + 1)), [depthLimitRule]);
    expect(errors.map((e) => e.message)).toEqual([`The operation is nested 9 levels deep; the maximum depth is ${MAX_QUERY_DEPTH}.`]);
    expect(errors[0]?.extensions?.code).toBe('QUERY_TOO_DEEP');
  });

  it('counts depth through fragments and inline fragments', () => {
    const source = `query Deep { node { ...A } } fragment A on Node { child { ... on Node { child { ...B } } } }
      fragment B on Node { child { child { child { child { child { name } } } } } }`;
    expect(validate(nesting, parse(source), [depthLimitRule]).map((e) => e.message)).toEqual([
      'Operation "Deep" is nested 9 levels deep; the maximum depth is 8.',
    ]);
  });

  it('accepts the deepest real member API query', () => {
    const source = `mutation { markAllNotificationsRead { viewer { enrolledCourses { edges { node { lastWatchedLecture { title } } } } } } }`;
    expect(errorsOf(memberSchema('A'), source)).toEqual([]);
  });

  it('accepts the standard introspection query on both variants', () => {
    const source = getIntrospectionQuery({
      descriptions: true,
      schemaDescription: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
    });
    expect(errorsOf(memberSchema('A'), source)).toEqual([]);
    expect(errorsOf(memberSchema('B'), source)).toEqual([]);
  });

  it('leaves self-nesting introspection to graphql’s own introspection depth rule, which refuses it', () => {
    const deep = `{ __schema { types { ${'fields { type { '.repeat(7)}name${' } }'.repeat(7)} } } }`;
    expect(errorsOf(memberSchema('A'), deep)).toEqual(['Maximum introspection depth exceeded']);
  });
});

describe('cost limit', () => {
  // viewer (1) + connection (1) + 100 × (nodes (1) + n aliased fields): 2 + 100 × (1 + n).
  const costly = (n: number, first = 100) => `{ viewer { enrolledCourses(first: ${first}) { nodes { ${aliases('slug', n)} } } } }`;

  it('accepts an operation at the cost limit and refuses one just above it, naming both numbers', () => {
    expect(errorsOf(memberSchema('B'), costly(48))).toEqual([]); // 2 + 100 × 49 = 4902
    expect(errorsOf(memberSchema('B'), costly(50))).toEqual([
      `The operation costs 5102, above the maximum of ${MAX_QUERY_COST}: ask for fewer items with a smaller "first", or fewer fields.`,
    ]);
  });

  it('counts the connection items by first, so a smaller page makes the same selection affordable', () => {
    expect(errorsOf(memberSchema('B'), costly(50, 10))).toEqual([]);
  });

  it('counts the default page size of 20 when first is omitted', () => {
    // 2 + 20 × (1 + 260) = 5222
    const source = `{ viewer { enrolledCourses { nodes { ${aliases('slug', 260)} } } } }`;
    expect(errorsOf(memberSchema('B'), source)).toEqual([expect.stringContaining('costs 5222')]);
  });

  it('counts edges like nodes and does not multiply pageInfo or totalCount', () => {
    // viewer 1 + connection 1 + totalCount 1 + pageInfo (1 + 2) + 100 × (edges 1 + cursor 1 + node (1 + 47)) = 5006
    const source = `{ viewer { enrolledCourses(first: 100) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${aliases('slug', 47)} } } } } }`;
    expect(errorsOf(memberSchema('B'), source)).toEqual([expect.stringContaining('costs 5006')]);
  });

  it('counts a variable first at the value sent, and at 100 when no value is known', () => {
    const source = `query Q($n: Int) { viewer { enrolledCourses(first: $n) { nodes { ${aliases('slug', 50)} } } } }`;
    expect(errorsOf(memberSchema('B'), source, { n: 10 })).toEqual([]);
    expect(errorsOf(memberSchema('B'), source, { n: 100 })).toEqual([expect.stringContaining('Operation "Q" costs 5102')]);
    expect(validate(memberSchema('B'), parse(source), [costLimitRule()]).map((e) => e.message)).toEqual([
      expect.stringContaining('costs 5102'),
    ]);
    const withDefault = `query Q($n: Int = 5) { viewer { enrolledCourses(first: $n) { nodes { ${aliases('slug', 50)} } } } }`;
    expect(errorsOf(memberSchema('B'), withDefault)).toEqual([]);
  });

  it('adds up aliased copies of the viewer', () => {
    const one = `viewer { enrolledCourses(first: 100) { nodes { ${aliases('slug', 30)} } } }`;
    expect(errorsOf(memberSchema('B'), `{ ${one} }`)).toEqual([]);
    expect(errorsOf(memberSchema('B'), `{ a: ${one} b: ${one} }`)).toEqual([expect.stringContaining('costs 6204')]);
  });

  it('counts fields inside fragments spread into a connection', () => {
    const source = `{ viewer { enrolledCourses(first: 100) { ...Page } } } fragment Page on EnrollmentConnection { nodes { ${aliases('slug', 50)} } }`;
    expect(errorsOf(memberSchema('B'), source)).toEqual([expect.stringContaining('costs 5102')]);
  });
});

describe('required scopes', () => {
  it('asks account:read for a query', () => {
    expect(requiredScopes(parse('{ viewer { id } }'))).toEqual(['account:read']);
    expect(requiredScopes(parse('query Inbox { viewer { unreadNotificationCount } }'))).toEqual(['account:read']);
  });

  it('asks account:write for a mutation that selects no viewer fields', () => {
    expect(requiredScopes(parse('mutation { markNotificationRead(id: "x") { id read } }'))).toEqual(['account:write']);
  });

  it('asks account:write and account:read for a mutation that selects viewer fields', () => {
    expect(requiredScopes(parse('mutation { markAllNotificationsRead { markedCount viewer { id } } }'))).toEqual([
      'account:write',
      'account:read',
    ]);
    const viaFragment = 'mutation { markAllNotificationsRead { ...P } } fragment P on MarkAllNotificationsReadPayload { viewer { email } }';
    expect(requiredScopes(parse(viaFragment))).toEqual(['account:write', 'account:read']);
  });

  it('answers for the named operation of a document with several', () => {
    const document = parse('query Read { viewer { id } } mutation Write { markAllNotificationsRead { markedCount } }');
    expect(requiredScopes(document, 'Read')).toEqual(['account:read']);
    expect(requiredScopes(document, 'Write')).toEqual(['account:write']);
  });

  it('asks for every operation’s scopes when the operation cannot be singled out', () => {
    const document = parse('query Read { viewer { id } } mutation Write { markAllNotificationsRead { markedCount } }');
    expect(requiredScopes(document).sort()).toEqual(['account:read', 'account:write']);
    expect(requiredScopes(document, 'Missing').sort()).toEqual(['account:read', 'account:write']);
  });

  it('asks account:read for a document without operations', () => {
    expect(requiredScopes(parse('fragment F on Viewer { id }'))).toEqual(['account:read']);
  });
});
