// Redis for tests: SCHOOLGATE_TEST_REDIS_URL (default as on this machine). Without a server the tests
// that need it skip loudly; under CI=true they fail.
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.SCHOOLGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is required under CI=true and does not answer at ${REDIS_URL}`);
    console.warn(`\n!!! Redis does not answer at ${REDIS_URL}: the cross-node revocation tests are SKIPPED !!!\n`);
    return false;
  } finally {
    client.disconnect();
  }
}
