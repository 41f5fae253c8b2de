// The baseline: a bare Fastify endpoint answering a small JSON document, on the same box. `GET /bare` is the
// endpoint every scenario's bar is a share of; `POST /bare` answers the same document after parsing a form
// or JSON body as the application's POST endpoints do, so that a POST scenario can also be read against
// what taking a body costs by itself.
import formbody from '@fastify/formbody';
import Fastify from 'fastify';

const document = { sub: 'per_bench', email: 'bench@example.test', name: 'Bench', roles: ['student'] };
const app = Fastify({ logger: false });
await app.register(formbody);
app.get('/bare', async () => document);
// Fastify reads and parses the body before any handler runs, whether or not the handler looks at it.
app.post('/bare', async () => document);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
