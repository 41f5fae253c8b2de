// CONTRACT 1-3 through `schoolgate serve --demo`: seeds an empty database, serves both demo origins,
// follows PORT on a restart, and shuts down cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { DemoServer } from '../helpers/demo-server.js';
import { formFields, hiddenFields, person } from '../helpers/person.js';
import { DEMO_CLIENTS, getTokens } from '../helpers/token-flow.js';
import { cli, cliEnv, startCli, TEST_SECRET } from './cli-harness.js';

/** The secret the demo's keys move to; they were sealed with TEST_SECRET. */
const NEW_SECRET = 'new-secret-0123456789abcdefghijklmnopqrstuvwxyzABCD';
import { freePort } from '../helpers/free-port.js';
import { plansOf } from '../helpers/sqlite-plans.js';
import { insertSite, listSites } from '../../src/sites/sites.repository.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

async function issuerAt(url: string): Promise<unknown> {
  const response = await fetch(`${url}/.well-known/openid-configuration`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { issuer?: unknown }).issuer;
}

/**
 * Runs `work` against `serve --demo` on the database at `url` with `env`, then stops it. Each server on a port
 * of its own: a keep-alive connection to the one before must not be reused. The browser's cookies are kept by
 * host name, as browsers do, so they reach every one of them.
 */
async function servingOn<T>(url: string, env: Record<string, string>, work: (origin: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const running = startCli(['serve', '--demo'], cliEnv(url, { PORT: String(port), ...env }));
  try {
    await running.waitFor('listening on');
    return await work(`http://localhost:${port}`);
  } finally {
    expect((await running.stop()).code).toBe(0);
  }
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`schoolgate serve --demo (${dialect})`, () => {
    let url: string;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ url, cleanup } = await freshDatabaseUrl(dialect));
    });

    afterAll(async () => {
      await cleanup?.();
    });

    it('seeds an empty database, serves both demo origins on PORT, prints the demo and stops cleanly on shutdown', async () => {
      const port = await freePort();
      const running = startCli(['serve', '--demo'], cliEnv(url, { PORT: String(port) }));
      try {
        await running.waitFor('listening on');
        const printed = running.output().stdout;
        expect(printed).toContain('Seeded the demo');
        for (const text of [
          `http://localhost:${port}`,
          `http://127.0.0.1:${port}/.well-known/openid-configuration`,
          'student@demo.test / student-pass-123',
          'academy-member-web',
        ]) {
          expect(printed).toContain(text);
        }
        expect(await issuerAt(`http://127.0.0.1:${port}`)).toBe(`http://127.0.0.1:${port}`);
      } finally {
        const ended = await running.stop();
        expect(ended.code).toBe(0);
      }
    });

    it('on a restart with another PORT keeps the seeded demo and moves its origins to the new port', async () => {
      const port = await freePort();
      const running = startCli(['serve', '--demo'], cliEnv(url, { PORT: String(port) }));
      try {
        await running.waitFor('listening on');
        expect(running.output().stdout).toContain('origins follow PORT');
        expect(await issuerAt(`http://127.0.0.1:${port}`)).toBe(`http://127.0.0.1:${port}`);
      } finally {
        expect((await running.stop()).code).toBe(0);
      }
    });

    it('refuses to start with a SCHOOLGATE_SECRET other than the one the stored signing keys were sealed with', async () => {
      const port = await freePort();
      const refused = await cli(
        ['serve', '--demo'],
        cliEnv(url, { PORT: String(port), SCHOOLGATE_SECRET: 'another-secret-0123456789abcdefghijklmnopqrstuvwxyz' }),
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/SCHOOLGATE_SECRET does not open the signing keys stored in this database/);
      expect(refused.stdout).not.toContain('listening on');
      await expect(fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).rejects.toThrow();
    });

    it('serves with a new SCHOOLGATE_SECRET while SCHOOLGATE_PREVIOUS_SECRET still opens the stored keys: ID tokens are signed and verify', async () => {
      const port = await freePort();
      const running = startCli(
        ['serve', '--demo'],
        cliEnv(url, { PORT: String(port), SCHOOLGATE_SECRET: NEW_SECRET, SCHOOLGATE_PREVIOUS_SECRET: TEST_SECRET }),
      );
      try {
        await running.waitFor('listening on');
        // Only the origins are read of the server by the token flow's helpers.
        const origins = { academy: `http://localhost:${port}`, studio: `http://127.0.0.1:${port}` } as unknown as DemoServer;
        const tokens = await getTokens(origins, DEMO_CLIENTS.academyApp);
        const jwks = createRemoteJWKSet(new URL(`${origins.academy}/.well-known/jwks.json`));
        const { payload } = await jwtVerify(tokens.id_token as string, jwks, { issuer: origins.academy });
        expect(payload.aud).toBe(DEMO_CLIENTS.academyApp.clientId);
      } finally {
        expect((await running.stop()).code).toBe(0);
      }
    });

    it('a new client secret sealed for the page after its form by a node on the old secret is shown by a node on the new one while SCHOOLGATE_PREVIOUS_SECRET is set', async () => {
      const owner = person('owner');
      const path = '/admin/developers/oauth-applications';
      const created = await servingOn(url, {}, async (origin) => {
        const form = await owner.request(`${origin}${path}`);
        const signedIn = await owner.request(`${origin}/oauth/sign-in`, {
          form: { ...hiddenFields(form.html), email: owner.email, password: owner.password },
        });
        expect(signedIn.status).toBe(303);
        const page = await owner.request(`${origin}${path}`);
        return owner.request(`${origin}${path}`, {
          form: {
            ...formFields(page.html, path),
            name: 'Secret Change Buddy',
            redirect_uris: 'https://buddy.example/callback',
            kind: 'confidential',
            scope: ['openid', 'account:read'],
          },
        });
      });
      expect(created.status).toBe(303);
      const target = new URL(created.location as string);
      const shown = await servingOn(url, { SCHOOLGATE_SECRET: NEW_SECRET, SCHOOLGATE_PREVIOUS_SECRET: TEST_SECRET }, (origin) =>
        owner.request(`${origin}${target.pathname}${target.search}`),
      );
      expect(shown.status).toBe(200);
      expect(/<code id="client-secret">([^<]+)<\/code>/.exec(shown.html)?.[1]).toMatch(/^sgs_/);
    });

    // The last test of this file: it moves the stored keys to NEW_SECRET.
    it('a form opened before the secret changed is accepted while SCHOOLGATE_PREVIOUS_SECRET is set, and refused (403) once the keys moved and it is unset', async () => {
      const owner = person('owner');
      const opened = await servingOn(url, {}, (origin) => owner.request(`${origin}/admin`));
      expect(opened.html).toContain('name="password"');
      const submit = (origin: string) =>
        owner.request(`${origin}/oauth/sign-in`, { form: { ...hiddenFields(opened.html), email: owner.email, password: owner.password } });

      const during = await servingOn(url, { SCHOOLGATE_SECRET: NEW_SECRET, SCHOOLGATE_PREVIOUS_SECRET: TEST_SECRET }, submit);
      expect(during.status).toBe(303);

      const moved = await cli(
        ['secret', 'reseal'],
        cliEnv(url, { SCHOOLGATE_SECRET: NEW_SECRET, SCHOOLGATE_PREVIOUS_SECRET: TEST_SECRET }),
      );
      expect(moved.code).toBe(0);
      const after = await servingOn(url, { SCHOOLGATE_SECRET: NEW_SECRET }, submit);
      expect(after.status).toBe(403);
      expect(after.html).toContain('This form expired');
    });
  });
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`schoolgate serve start-up summary of many sites (${dialect})`, () => {
    let url: string;
    let cleanup: () => Promise<void>;
    let store: Store;
    // Created a minute apart, their slugs in the reverse order: the summary must follow creation.
    let minute = 0;
    const clock = { now: () => Date.UTC(2026, 0, 1) + minute * 60_000 };
    const createSites = async (from: number, to: number) => {
      for (let i = from; i < to; i++, minute++)
        await insertSite(
          store.db,
          { slug: `school-${99 - i}`, name: `School ${i}`, origin: `https://s${i}.example.test`, variant: 'A' },
          clock,
        );
    };
    const summary = async () => {
      const running = startCli(['serve'], cliEnv(url, { PORT: String(await freePort()) }));
      try {
        await running.waitFor('listening on');
        return running.output().stdout;
      } finally {
        expect((await running.stop()).code).toBe(0);
      }
    };

    beforeAll(async () => {
      ({ url, cleanup } = await freshDatabaseUrl(dialect));
      store = openStore(url);
      await migrateToLatest(store);
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('names the first 20 sites by creation and, past them, points at `schoolgate site list` without counting every site', async () => {
      await createSites(0, 20);
      const twenty = await summary();
      for (let i = 0; i < 20; i++) expect(twenty).toContain(`School ${i} (school-${99 - i}, variant A)  https://s${i}.example.test`);
      expect(twenty).not.toContain('… and more');

      await createSites(20, 22);
      const more = await summary();
      expect(
        more
          .split('\n')
          .filter((line) => line.includes('.example.test'))
          .map((line) => line.trim().split(' (')[0]),
      ).toEqual(Array.from({ length: 20 }, (_, i) => `School ${i}`));
      expect(more).toContain('  … and more: `schoolgate site list` lists every site');
    });

    if (dialect === 'sqlite') {
      it('reads the first sites by creation through migration 049’s index, with no scan or sort of the sites', async () => {
        const plans = await plansOf(store.db, '"sites"', (db) => listSites(db, 21));
        expect(plans).toHaveLength(1);
        expect(plans[0]).toMatch(/SCAN sites USING INDEX sites_created/);
        expect(plans[0]).not.toMatch(/TEMP B-TREE/);
      });
    }
  });
}
