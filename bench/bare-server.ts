// The baseline: a bare Fastify endpoint answering a small JSON document, on the same box.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ sub: 'per_bench', email: 'bench@example.test', name: 'Bench', roles: ['student'] }));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
