// Issue 8: graphql-js parses recursively, so a document nested a few thousand levels deep overflows the
// stack inside `parse` itself, before any validation rule can refuse it. These limits bound the text
// before parsing (bracket nesting, counted by a linear scan that knows strings and comments) and while
// parsing (graphql-js `maxTokens`), so no recursive code ever sees a hostile document.
import { GraphQLError, type DocumentNode, parse } from 'graphql';

/**
 * Deepest nesting of `{`, `(` and `[` a document may have. The depth rule allows 8 levels of fields;
 * arguments, input objects and list values add a few levels each, and 64 leaves ample room for them.
 */
export const MAX_DOCUMENT_NESTING = 64;
/** Most lexical tokens a document may have: far above any real app's query, far below a costly parse. */
export const MAX_DOCUMENT_TOKENS = 5000;

function tooDeep(): GraphQLError {
  return new GraphQLError(`The document is nested more than ${MAX_DOCUMENT_NESTING} brackets deep.`, {
    extensions: { code: 'DOCUMENT_TOO_DEEP', maxNesting: MAX_DOCUMENT_NESTING },
  });
}

/** The deepest bracket nesting of a GraphQL text, ignoring strings, block strings and comments. */
export function documentNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < n && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        // An escaped \""" inside a block string is rare enough to treat as its end; the parser decides validity.
        i = end < 0 ? n : end + 3;
        continue;
      }
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22 || d === 0x0a || d === 0x0d) break;
        else i++;
      }
    } else if (c === 0x7b || c === 0x28 || c === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x29 || c === 0x5d) {
      depth--;
    }
    i++;
  }
  return deepest;
}

/** Parses a member API document within the limits; a refusal is a GraphQLError with a stable code. */
export function parseBounded(text: string): DocumentNode {
  if (documentNesting(text) > MAX_DOCUMENT_NESTING) throw tooDeep();
  try {
    return parse(text, { maxTokens: MAX_DOCUMENT_TOKENS });
  } catch (error) {
    if (error instanceof GraphQLError && /Document contains more th\w+ \d+ tokens/.test(error.message)) {
      throw new GraphQLError(`The document has more than ${MAX_DOCUMENT_TOKENS} tokens.`, {
        extensions: { code: 'DOCUMENT_TOO_LARGE', maxTokens: MAX_DOCUMENT_TOKENS },
      });
    }
    throw error;
  }
}
