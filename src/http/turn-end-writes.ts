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
//
// One immediate per turn hands on all of the turn's answers, from a list it then empties. An immediate per
// answer (`setImmediate(done, null, payload)`) kept its arguments, and through them its whole request, after
// it ran: Node clears a spent immediate's callback but not its arguments, nor its link to the turn's next
// immediate (processImmediate, lib/internal/timers.js, Node 20). Under MCP anonymous tool calls, 2 runs of 4
// then promoted 1.6 MB of requests to the old generation at every scavenge (5 ms pauses, a third more CPU a
// request), and none did without the hook (bench/RESULTS.md, thirty-fifth session).
//
// For the same reason a hot async handler returns its payload (headers set on the reply first) rather than
// `reply.send(...)`'s reply: a returned reply is a thenable, so its promise adopts it by calling reply.then,
// which, the answer not yet written, waits for the response to finish through end-of-stream listeners
// (1.4 µs of an introspection request's 44). A handler that sent and returned nothing would be sent twice.
import type { FastifyInstance, onSendHookHandler } from 'fastify';

type Done = Parameters<onSendHookHandler>[3];

export function writeAnswersAtTurnEnd(app: FastifyInstance): void {
  // The turn's answers (each one's continuation, then its payload), and the list for the next turn. Two lists,
  // each emptied once handed on: a spent list kept in the old generation would hold finished requests too.
  let held: unknown[] = [];
  let spare: unknown[] = [];
  const handOn = () => {
    const answers = held;
    held = spare;
    for (let i = 0; i < answers.length; i += 2) {
      try {
        (answers[i] as Done)(null, answers[i + 1]);
      } catch (error) {
        // One answer's failure must not strand the others; it still surfaces as an uncaught exception, as it
        // did from an immediate of its own.
        process.nextTick(() => {
          throw error;
        });
      }
    }
    answers.length = 0;
    spare = answers;
  };
  // Callback style (four parameters): no promise per request.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (held.length === 0) setImmediate(handOn);
    held.push(done, payload);
  });
}
