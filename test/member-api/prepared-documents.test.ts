// Query texts prepared once (SPEC 4.3; issue 3 limits): the same text is parsed and validated once, the cost
// limit is still counted with each request's variables, and the cache stays bounded.
import { describe, expect, it } from 'vitest';
import { memberSchema } from '../../src/member-api/schema.js';
import { PREPARED_DOCUMENT_MAX_CHARS, PREPARED_DOCUMENTS_KEPT, preparedDocuments } from '../../src/member-api/prepared-documents.js';

const aliases = (count: number) => Array.from({ length: count }, (_, i) => `a${i}: slug`).join(' ');

describe('prepared member API documents', () => {
  it('returns the same preparation for the same query text', () => {
    const prepare = preparedDocuments(memberSchema('A'));
    const first = prepare('{ viewer { id } }');
    expect(first.ok).toBe(true);
    expect(prepare('{ viewer { id } }')).toBe(first);
  });

  it('reports a syntax error as such, and validation errors (graphql rules, depth) without variables', () => {
    const prepare = preparedDocuments(memberSchema('B'));
    const broken = prepare('{ viewer { id ');
    expect(broken.ok ? undefined : broken.syntaxError.message).toMatch(/^Syntax Error/);
    const unknown = prepare('{ viewer { notifications { totalCount } } }');
    expect(unknown.ok && unknown.prepared.validationErrors(undefined).map((e) => e.message)).toEqual([
      'Cannot query field "notifications" on type "Viewer".',
    ]);
  });

  it('counts the cost with each request’s variables when the document declares any', () => {
    const prepare = preparedDocuments(memberSchema('A'));
    const query = `query Q($n: Int) { viewer { enrolledCourses(first: $n) { nodes { ${aliases(50)} } } } }`;
    const preparation = prepare(query);
    if (!preparation.ok) throw preparation.syntaxError;
    expect(preparation.prepared.validationErrors({ n: 100 }).map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COSTLY']);
    expect(preparation.prepared.validationErrors({ n: 5 })).toEqual([]);
    expect(prepare(query)).toBe(preparation);
  });

  it('counts the cost once for a document without variables', () => {
    const prepare = preparedDocuments(memberSchema('A'));
    const costly = prepare(`{ viewer { enrolledCourses(first: 100) { nodes { ${aliases(50)} } } } }`);
    if (!costly.ok) throw costly.syntaxError;
    expect(costly.prepared.validationErrors(undefined)).toEqual(costly.prepared.validationErrors({ n: 1 }));
    expect(costly.prepared.validationErrors(undefined)[0]?.message).toContain('costs 5102');
  });

  it(`keeps at most ${PREPARED_DOCUMENTS_KEPT} texts, dropping the oldest, and never keeps a text over ${PREPARED_DOCUMENT_MAX_CHARS} characters`, () => {
    const prepare = preparedDocuments(memberSchema('A'));
    const oldest = prepare('{ viewer { id } }');
    for (let i = 0; i < PREPARED_DOCUMENTS_KEPT; i++) prepare(`{ viewer { id } } # ${i}`);
    expect(prepare('{ viewer { id } }')).not.toBe(oldest);
    const long = `{ viewer { id } } #${'x'.repeat(PREPARED_DOCUMENT_MAX_CHARS)}`;
    expect(prepare(long)).not.toBe(prepare(long));
  });
});
