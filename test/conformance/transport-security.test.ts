// RFC 9700 4.1.1, OWASP ASVS 9.1, 3.4 (issue 8 security read): an https site tells browsers never to reach it
// over plain http again (Strict-Transport-Security); a plain-http site (local development) does not,
// since browsers ignore the header there and it would only mislead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`Strict-Transport-Security (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      // The https site is reached through a trusted TLS-terminating proxy (the test plays it).
      server = await startDemoServer(dialect, { env: { TRUST_PROXY: '127.0.0.1' } });
      const code = await runCli(
        ['site', 'create', '--slug', 'secure', '--name', 'Secure School', '--origin', 'https://secure.example', '--variant', 'A'],
        { stdout: { write: () => true }, stderr: { write: () => true } },
        { DATABASE_URL: server.config.databaseUrl, SCHOOLGATE_SECRET: server.config.secret },
        { clock: server.clock },
      );
      expect(code).toBe(0);
      await server.app.services.sites.reload();
    });
    afterAll(() => server?.close());

    it('sends Strict-Transport-Security on every answer of an https site, pages and APIs alike', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/oauth/authorize', '/api/oauth/userinfo']) {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
          headers: { 'x-forwarded-host': 'secure.example', 'x-forwarded-proto': 'https' },
          redirect: 'manual',
        });
        expect(res.status, path).not.toBe(404);
        expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000');
      }
    });

    it('names the cookies of an https site with the __Host- prefix: Secure, Path=/, no Domain', async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/oauth/sign-out`, {
        headers: { 'x-forwarded-host': 'secure.example', 'x-forwarded-proto': 'https' },
      });
      expect(res.status).toBe(200);
      const line = res.headers.getSetCookie().find((l) => l.startsWith('__Host-sg_csrf_'));
      expect(line).toBeDefined();
      expect(line).toMatch(/; Secure/i);
      expect(line).toMatch(/; Path=\//i);
      expect(line).not.toMatch(/Domain=/i);
    });

    it('sends no Strict-Transport-Security on a plain-http site', async () => {
      const res = await fetch(`${server.academy}/.well-known/oauth-authorization-server`);
      expect(res.status).toBe(200);
      expect(res.headers.get('strict-transport-security')).toBeNull();
    });
  });
}
