// A large JSON answer leaves as bytes, not as a string. Given a string body, Node's http writes the head
// and the body as one new string (the body copied behind the head, then flattened and encoded to UTF-8 as
// it is written), and Fastify first walks the string to count its UTF-8 bytes for Content-Length. Given
// bytes, the length is the buffer's and the head goes out beside it without a copy: a year of revenue by
// product (20 series, 254 KB) cost the server a fifth less CPU a request. A small answer is the other way
// round, the string's one write being cheaper than a head and a buffer written together (UserInfo, GraphQL
// and MCP answers of 0.5-6 KB took more CPU as bytes in most runs). bench/RESULTS.md, twenty-ninth session.

/**
 * At and above this many UTF-16 units a JSON answer is sent as bytes. Between the two, a students' page of
 * 100 (14 KB) measured the same either way.
 */
export const LARGE_ANSWER_UNITS = 16_384;

export function answerBody(json: string): string | Buffer {
  return json.length >= LARGE_ANSWER_UNITS ? Buffer.from(json, 'utf8') : json;
}
