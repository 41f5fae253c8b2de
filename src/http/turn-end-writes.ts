// Answers leave at the end of the event loop's turn (issue 12): each is handed to its socket in the check
// phase of the turn in which it was finished, after that turn's I/O callbacks, so the answers finished in
// one turn are written one after another instead of each between the reading of further requests.
//
// Why: each write to a socket whose reader sleeps wakes that reader, and when the reader is a process on
// the same host (nginx in front, as deploy/ runs it; the load generator in `npm run bench`) the wake-up is
// kernel work charged to the writer: on this 2-vCPU virtual machine the largest single item of a request's
// CPU. Written one at a time, between the reading and handling of the next requests, nearly every answer
// woke the reader again; written together, the first wakes it and the rest find it awake. The reader then
// sends its next requests together too, and both sides work in batches. Measured (bench/RESULTS.md,
// thirty-fourth session): behind nginx configured as deploy/nginx.conf, GraphQL 12.6k -> 19.5k req/s, the
// server's CPU per request down a third and nginx's almost half; in `npm run bench`, UserInfo,
// introspection, GraphQL and MCP spent 28-49% less CPU per request than in the run before. The refresh
// grant did not move: its answers already leave together, from the group commit's turn. An answer that
// waited for PostgreSQL or Redis is held as well; for those the Redis client's auto-pipelining (services.ts)
// mattered more.
//
// The cost: an answer waits for the rest of its turn, bounded by what that turn reads; a request that
// arrives alone waits for nothing. Node offers no way to hold a socket's writes (ending a response always
// flushes its socket), so the wait is an onSend hook that hands the payload on in the turn's check phase.
import type { FastifyInstance } from 'fastify';

export function writeAnswersAtTurnEnd(app: FastifyInstance): void {
  // Callback style (four parameters): no promise per request.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    setImmediate(done, null, payload);
  });
}
