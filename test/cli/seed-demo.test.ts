// CONTRACT 3 through `schoolgate seed --demo`: the demo's sites, people, roles, member apps and keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alignDemoOrigins, databaseIsEmpty, DEMO_MEMBER_SCOPES } from '../../src/demo/seed-demo.js';
import { hashToken } from '../../src/kernel/hashing.js';
import { verifyPassword } from '../../src/kernel/password.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { cli, cliEnv } from './cli-harness.js';

const ACADEMY = 'http://localhost:4100';
const STUDIO = 'http://127.0.0.1:4100';

const PEOPLE = [
  {
    email: 'owner@demo.test',
    password: 'owner-pass-123',
    avatar: `${ACADEMY}/avatars/owner.svg`,
    roles: ['demo-academy:owner', 'demo-studio:admin'],
  },
  {
    email: 'student@demo.test',
    password: 'student-pass-123',
    avatar: `${ACADEMY}/avatars/student.svg`,
    roles: ['demo-academy:student', 'demo-studio:student'],
  },
  {
    email: 'lecturer@demo.test',
    password: 'lecturer-pass-123',
    avatar: `${ACADEMY}/avatars/lecturer.svg`,
    roles: ['demo-academy:lecturer'],
  },
  { email: 'visitor@demo.test', password: 'visitor-pass-123', avatar: `${STUDIO}/avatars/visitor.svg`, roles: ['demo-studio:student'] },
];

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`schoolgate seed --demo (${dialect})`, () => {
    let url: string;
    let cleanup: () => Promise<void>;
    let store: Store;
    let seedOutput: string;

    beforeAll(async () => {
      ({ url, cleanup } = await freshDatabaseUrl(dialect));
      const result = await cli(['seed', '--demo'], cliEnv(url));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      seedOutput = result.stdout;
      store = openStore(url);
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('creates Demo Academy (localhost, variant A) and Demo Studio (127.0.0.1, variant B) on PORT, both with the MCP beta on', async () => {
      const sites = await store.db.selectFrom('sites').select(['slug', 'name', 'origin', 'variant', 'mcp_beta']).orderBy('slug').execute();
      expect(sites).toEqual([
        { slug: 'demo-academy', name: 'Demo Academy', origin: ACADEMY, variant: 'A', mcp_beta: 1 },
        { slug: 'demo-studio', name: 'Demo Studio', origin: STUDIO, variant: 'B', mcp_beta: 1 },
      ]);
    });

    it('creates the four demo people with their passwords, a display name and an avatar served by the site of their first role', async () => {
      // The CONTRACT 3 people; the learners of the demo's year of history are learnerNNN@demo.test.
      const people = await store.db.selectFrom('people').selectAll().where('email', 'not like', 'learner%').orderBy('email').execute();
      expect(people.map((p) => p.email).sort()).toEqual(PEOPLE.map((p) => p.email).sort());
      for (const expected of PEOPLE) {
        const row = people.find((p) => p.email === expected.email)!;
        expect(row.name.trim().length).toBeGreaterThan(0);
        expect(row.picture_url).toBe(expected.avatar);
        expect(row.password_hash).toMatch(/^scrypt\$/);
        expect(await verifyPassword(expected.password, row.password_hash)).toBe(true);
      }
    });

    it('grants exactly the roles of CONTRACT 3 (the visitor has none at Demo Academy, the lecturer none at Demo Studio)', async () => {
      const rows = await store.db
        .selectFrom('site_roles')
        .innerJoin('sites', 'sites.id', 'site_roles.site_id')
        .innerJoin('people', 'people.id', 'site_roles.person_id')
        .where('people.email', 'not like', 'learner%')
        .select(['people.email', 'sites.slug', 'site_roles.role'])
        .execute();
      for (const person of PEOPLE) {
        const held = rows.filter((r) => r.email === person.email).map((r) => `${r.slug}:${r.role}`);
        expect(held.sort()).toEqual([...person.roles].sort());
      }
      expect(rows).toHaveLength(6);
    });

    it('creates the three member apps with their kinds, redirect URIs and member scopes; the confidential secret only as its hash', async () => {
      const apps = await store.db
        .selectFrom('member_clients')
        .innerJoin('sites', 'sites.id', 'member_clients.site_id')
        .select(['client_id', 'sites.slug', 'kind', 'secret_hash', 'redirect_uris', 'scopes'])
        .orderBy('client_id')
        .execute();
      const loopback = ['http://127.0.0.1/callback', 'http://localhost/callback'];
      expect(apps.map((a) => ({ ...a, redirect_uris: JSON.parse(a.redirect_uris) as string[] }))).toEqual([
        {
          client_id: 'academy-member-app',
          slug: 'demo-academy',
          kind: 'public',
          secret_hash: null,
          redirect_uris: loopback,
          scopes: DEMO_MEMBER_SCOPES.join(' '),
        },
        {
          client_id: 'academy-member-web',
          slug: 'demo-academy',
          kind: 'confidential',
          secret_hash: hashToken('academy-member-secret'),
          redirect_uris: ['http://127.0.0.1:8976/callback'],
          scopes: 'openid profile email account:read account:write',
        },
        {
          client_id: 'studio-member-app',
          slug: 'demo-studio',
          kind: 'public',
          secret_hash: null,
          redirect_uris: loopback,
          scopes: DEMO_MEMBER_SCOPES.join(' '),
        },
      ]);
    });

    it('gives each demo site an active and a published next signing key, private parts sealed', async () => {
      const keys = await store.db
        .selectFrom('signing_keys')
        .innerJoin('sites', 'sites.id', 'signing_keys.site_id')
        .select(['sites.slug', 'state', 'alg', 'private_jwk_sealed'])
        .execute();
      for (const slug of ['demo-academy', 'demo-studio']) {
        expect(
          keys
            .filter((k) => k.slug === slug)
            .map((k) => k.state)
            .sort(),
        ).toEqual(['active', 'next']);
      }
      for (const key of keys) {
        expect(key.alg).toBe('ES256');
        expect(key.private_jwk_sealed).toMatch(/^v1\./);
        expect(key.private_jwk_sealed).not.toContain('"d"');
      }
    });

    it('prints the demo origins, every account with its password, and the member apps', () => {
      for (const text of [
        ACADEMY,
        STUDIO,
        `${ACADEMY}/.well-known/openid-configuration`,
        'academy-member-app',
        'academy-member-web',
        'studio-member-app',
      ]) {
        expect(seedOutput).toContain(text);
      }
      for (const person of PEOPLE) expect(seedOutput).toContain(`${person.email} / ${person.password}`);
    });

    it('refuses to seed a database that already holds sites, with a clear message, and changes nothing', async () => {
      const before = await store.db.selectFrom('people').select('id').execute();
      const again = await cli(['seed', '--demo'], cliEnv(url));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/already holds sites/);
      expect(await store.db.selectFrom('people').select('id').execute()).toHaveLength(before.length);
      expect(await databaseIsEmpty(store.db)).toBe(false);
    });

    it('moves the demo origins and demo avatars to a new PORT (alignDemoOrigins), leaving an edited picture alone', async () => {
      await store.db
        .updateTable('people')
        .set({ picture_url: 'https://cdn.example/me.png' })
        .where('email', '=', 'lecturer@demo.test')
        .execute();
      await alignDemoOrigins(store.db, 4200);
      const sites = await store.db.selectFrom('sites').select(['slug', 'origin']).orderBy('slug').execute();
      expect(sites).toEqual([
        { slug: 'demo-academy', origin: 'http://localhost:4200' },
        { slug: 'demo-studio', origin: 'http://127.0.0.1:4200' },
      ]);
      const pictures = Object.fromEntries(
        (await store.db.selectFrom('people').select(['email', 'picture_url']).where('email', 'not like', 'learner%').execute()).map((p) => [
          p.email,
          p.picture_url,
        ]),
      );
      expect(pictures).toEqual({
        'owner@demo.test': 'http://localhost:4200/avatars/owner.svg',
        'student@demo.test': 'http://localhost:4200/avatars/student.svg',
        'lecturer@demo.test': 'https://cdn.example/me.png',
        'visitor@demo.test': 'http://127.0.0.1:4200/avatars/visitor.svg',
      });
    });
  });
}
