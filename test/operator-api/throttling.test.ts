// CONTRACT 6 "Throttling": the operator API answers 429 with Retry-After and RateLimit-* headers once an
// operator client has spent its budget at a site (limits.operator_rate_per_minute), counted per client per
// site: another site's budget of the same client is its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { call, expectProblem, VENDOR } from '../helpers/operator-api.js';
import { person } from '../helpers/person.js';
import { getTokens } from '../helpers/token-flow.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`operator API throttling (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect, {
        platform: (p) => {
          p.limits.operator_rate_per_minute = 3;
        },
      });
    });
    afterAll(() => server?.close());

    it('answers the call past the budget with 429 rate_limited, Retry-After and RateLimit-*, per client per site', async () => {
      const academy = (await getTokens(server, VENDOR('academy'), { scope: 'courses:read', who: person('owner') })).access_token;
      const studio = (await getTokens(server, VENDOR('studio'), { scope: 'courses:read', who: person('owner') })).access_token;
      server.clock.startRateWindow();
      for (let i = 0; i < 3; i++) expect((await call(server.academy, 'GET', '/courses', academy)).status).toBe(200);
      const refused = await call(server.academy, 'GET', '/courses', academy);
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-limit')).toBe('3');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-policy')).toBe('3;w=60');
      // The same client at the other school has its own budget.
      expect((await call(server.studio, 'GET', '/courses', studio)).status).toBe(200);
      // The window passes.
      server.clock.advance(61_000);
      expect((await call(server.academy, 'GET', '/courses', academy)).status).toBe(200);
    });
  });
}
