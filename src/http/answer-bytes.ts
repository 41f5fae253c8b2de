// A very large JSON answer leaves as bytes, not as a string. Given a string body, Node's http writes the
// head and the body as one new string (the body copied behind the head, then flattened and encoded to UTF-8
// as it is written), and Fastify first walks the string to count its UTF-8 bytes for Content-Length. Given
// bytes, the length is the buffer's and the head goes out beside it without a copy: a year of revenue by
// product (20 series, 254 KB) cost the server a fifth less CPU a request. Below that the string is the
// cheaper: a bare Fastify endpoint answering ASCII JSON spent more CPU on bytes at every size from 2 to
// 128 KB (twice as much at 128 KB; the same at 256 KB), and UserInfo, GraphQL and MCP answers of 0.5-6 KB
// took more as bytes in most runs. bench/RESULTS.md, twenty-ninth session.

/**
 * At and above this many UTF-16 units a JSON answer is sent as bytes: between the bare endpoint's 128 KB,
 * where bytes cost twice the string, and the 254 KB series, where they cost a fifth less.
 */
export const LARGE_ANSWER_UNITS = 196_608;

export function answerBody(json: string): string | Buffer {
  return json.length >= LARGE_ANSWER_UNITS ? Buffer.from(json, 'utf8') : json;
}
