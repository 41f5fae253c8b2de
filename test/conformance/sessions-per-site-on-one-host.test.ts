// Issue 8 (cookies are scoped by host, not by port): two sites on one host name, told apart only by their
// port, each keep their own session and CSRF cookie. Signing in at one leaves the other's session alone,
// and a CSRF value issued by one is refused by the other. The browser here keeps cookies per host name,
// as browsers do (RFC 6265 8.5: cookies do not provide isolation by port).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import {
  authorizationUrl,
  follow,
  hasSignInForm,
  isConsentPage,
  isSignInForm,
  setCookie,
  signInThrough,
} from '../helpers/authorization-url.js';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { hiddenFields, person } from '../helpers/person.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`one session per site on one host name (${dialect})`, () => {
    let server: DemoServer;
    let proxy: TcpProxy;
    let second: string;

    beforeAll(async () => {
      server = await startDemoServer(dialect);
      // A second port in front of the same listener: the site at localhost:<that port> is another site.
      proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
      second = `http://localhost:${proxy.port}`;
      const env = { DATABASE_URL: server.config.databaseUrl, SCHOOLGATE_SECRET: server.config.secret };
      const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
      const create = ['site', 'create', '--slug', 'second', '--name', 'Second School', '--origin', second, '--variant', 'A', '--mcp-beta'];
      expect(await runCli(create, quiet, env, { clock: server.clock })).toBe(0);
      const grant = ['role', 'grant', '--site', 'second', '--email', 'student@demo.test', '--role', 'student'];
      expect(await runCli(grant, quiet, env, { clock: server.clock })).toBe(0);
      const app = [
        'client',
        'create',
        '--site',
        'second',
        '--name',
        'Second App',
        '--kind',
        'public',
        '--redirect-uri',
        'http://127.0.0.1:53123/callback',
        '--scope',
        'openid profile',
      ];
      const out: string[] = [];
      expect(
        await runCli(app, { stdout: { write: (c: string) => out.push(c) > 0 }, stderr: quiet.stderr }, env, { clock: server.clock }),
      ).toBe(0);
      secondClient = /client_id\s+(\S+)/.exec(out.join(''))?.[1] ?? '';
      expect(secondClient).not.toBe('');
      await server.app.services.sites.reload();
    });
    afterAll(async () => {
      await proxy?.close();
      await server?.close();
    });

    let secondClient = '';
    const academyRequest = () => authorizationUrl(server.academy, 'academy-member-app');
    const secondRequest = () =>
      authorizationUrl(second, secondClient, {
        redirect_uri: 'http://127.0.0.1:53123/callback',
        scope: 'openid profile',
        resource: second,
      });

    it('keeps both sessions when the same browser signs in at two sites on one host name', async () => {
      const p = person('student');
      const first = await signInThrough(p, academyRequest());
      const other = await signInThrough(p, secondRequest());
      const a = setCookie(first.headers, 'sg_session');
      const b = setCookie(other.headers, 'sg_session');
      expect(a?.get('name')).toBeDefined();
      expect(a?.get('name')).not.toBe(b?.get('name'));
      // Both sessions live on: neither site asks the person to sign in again.
      expect(isConsentPage(await follow(p, server.academy, await p.request(academyRequest())))).toBe(true);
      expect(isConsentPage(await follow(p, second, await p.request(secondRequest())))).toBe(true);
    });

    it("refuses the other site's CSRF value on the sign-in form with 403", async () => {
      const p = person('student');
      const academyForm = await p.request(academyRequest());
      const secondForm = await p.request(secondRequest());
      expect(isSignInForm(academyForm) && isSignInForm(secondForm)).toBe(true);
      // The browser holds both sites' CSRF cookies (one host name); the field of one site is posted to the other.
      const fields = { ...hiddenFields(secondForm.html), csrf_token: hiddenFields(academyForm.html).csrf_token as string };
      const crossed = await p.request(`${second}/oauth/sign-in`, { form: { ...fields, email: p.email, password: p.password } });
      expect(crossed.status).toBe(403);
      expect(hasSignInForm(crossed.html)).toBe(true);
      // The site's own value works.
      const own = await p.request(`${second}/oauth/sign-in`, {
        form: { ...hiddenFields(secondForm.html), email: p.email, password: p.password },
      });
      expect(own.status).toBe(303);
    });
  });
}
