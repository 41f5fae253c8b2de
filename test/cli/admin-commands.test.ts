// CONTRACT 1 operator commands: site create|list, user create, role grant, client create|list, keys rotate, audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/kernel/hashing.js';
import { verifyPassword } from '../../src/kernel/password.js';
import { MIN_NEXT_KEY_AGE_SECONDS, publishedKeys } from '../../src/keys/signing-keys.js';
import { TestClock } from '../helpers/test-clock.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';
import { cli, cliEnv } from './cli-harness.js';

/** Platform default ID token lifetime (600 s) plus the 120 s margin keys rotate adds. */
const RETIRE_WINDOW_MS = (600 + 120) * 1000;
/** Long enough for loadConfig, but not the secret the database's keys were sealed with. */
const OTHER_SECRET = 'another-secret-0123456789abcdefghijklmnopqrstuvwxyz';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`schoolgate operator commands (${dialect})`, () => {
    let url: string;
    let cleanup: () => Promise<void>;
    let store: Store;
    let env: NodeJS.ProcessEnv;
    const clock = new TestClock();

    const siteId = async (slug: string) =>
      (await store.db.selectFrom('sites').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
    const keyStates = async (slug: string) =>
      store.db
        .selectFrom('signing_keys')
        .select(['kid', 'state', 'publish_until', 'activated_at'])
        .where('site_id', '=', await siteId(slug))
        .execute();

    beforeAll(async () => {
      ({ url, cleanup } = await freshDatabaseUrl(dialect));
      env = cliEnv(url);
      store = openStore(url);
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('migrate brings an empty database up to date, and a second run changes nothing', async () => {
      const first = await cli(['migrate'], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/Applied: 001-authorization-server/);
      const second = await cli(['migrate'], env);
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/up to date/);
    });

    it('site create stores the normalised origin, the variant and the MCP beta flag, and creates an active and a next key', async () => {
      const result = await cli(
        [
          'site',
          'create',
          '--slug',
          'north',
          '--name',
          'North School',
          '--origin',
          'HTTPS://North.Example:443/',
          '--variant',
          'A',
          '--mcp-beta',
        ],
        env,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('https://north.example/.well-known/openid-configuration');
      const row = await store.db.selectFrom('sites').selectAll().where('slug', '=', 'north').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'North School', origin: 'https://north.example', variant: 'A', mcp_beta: 1 });
      expect((await keyStates('north')).map((k) => k.state).sort()).toEqual(['active', 'next']);
    });

    it('site create without --mcp-beta leaves the beta off and accepts a lowercase variant', async () => {
      const result = await cli(
        ['site', 'create', '--slug', 'south', '--name', 'South School', '--origin', 'http://127.0.0.1:4555', '--variant', 'b'],
        env,
      );
      expect(result.code).toBe(0);
      const row = await store.db.selectFrom('sites').selectAll().where('slug', '=', 'south').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ origin: 'http://127.0.0.1:4555', variant: 'B', mcp_beta: 0 });
    });

    it('site create refuses an origin with a path, or not http(s), as a usage error (exit 2)', async () => {
      for (const origin of ['https://east.example/school', 'ftp://east.example', 'east.example', 'https://east.example/?x=1']) {
        const result = await cli(['site', 'create', '--slug', 'east', '--name', 'East', '--origin', origin, '--variant', 'A'], env);
        expect(result.code, origin).toBe(2);
        expect(result.stderr).toMatch(/--origin must be an http\(s\) origin/);
      }
      expect(await store.db.selectFrom('sites').select('id').where('slug', '=', 'east').executeTakeFirst()).toBeUndefined();
    });

    it('site create refuses a name longer than the operator API allows for a school (200 characters), as a usage error (exit 2)', async () => {
      const long = 'E'.repeat(201);
      const result = await cli(
        ['site', 'create', '--slug', 'east', '--name', long, '--origin', 'https://east.example', '--variant', 'A'],
        env,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--name may be at most 200 characters/);
      expect(await store.db.selectFrom('sites').select('id').where('slug', '=', 'east').executeTakeFirst()).toBeUndefined();
    });

    it('site create refuses a taken slug or a taken origin (exit 1)', async () => {
      const slug = await cli(
        ['site', 'create', '--slug', 'north', '--name', 'Again', '--origin', 'https://other.example', '--variant', 'A'],
        env,
      );
      expect(slug.code).toBe(1);
      expect(slug.stderr).toMatch(/slug "north" already exists/);
      const origin = await cli(
        ['site', 'create', '--slug', 'north-2', '--name', 'Again', '--origin', 'https://north.example', '--variant', 'A'],
        env,
      );
      expect(origin.code).toBe(1);
      expect(origin.stderr).toMatch(/already belongs to site "north"/);
    });

    it('site create refuses a SCHOOLGATE_SECRET that does not open the stored keys, and creates nothing (exit 1)', async () => {
      const result = await cli(
        ['site', 'create', '--slug', 'west', '--name', 'West', '--origin', 'https://west.example', '--variant', 'A'],
        { ...env, SCHOOLGATE_SECRET: OTHER_SECRET },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/SCHOOLGATE_SECRET does not open the signing keys stored in this database/);
      expect(await store.db.selectFrom('sites').select('id').where('slug', '=', 'west').executeTakeFirst()).toBeUndefined();
    });

    it('site list shows every site with its origin and variant', async () => {
      const result = await cli(['site', 'list'], env);
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^north\thttps:\/\/north\.example\tvariant A\tmcp-beta\tNorth School$/);
      expect(lines[1]).toMatch(/^south\thttp:\/\/127\.0\.0\.1:4555\tvariant B\t-\tSouth School$/);
    });

    it('user create reads the password from SCHOOLGATE_NEW_PASSWORD and stores only its scrypt hash', async () => {
      const result = await cli(
        ['user', 'create', '--email', 'Ada@North.Example', '--name', 'Ada Lovelace', '--picture-url', 'https://north.example/ada.png'],
        { ...env, SCHOOLGATE_NEW_PASSWORD: 'ada-pass-12345' },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const row = await store.db.selectFrom('people').selectAll().where('email', '=', 'ada@north.example').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ name: 'Ada Lovelace', picture_url: 'https://north.example/ada.png' });
      expect(row.password_hash).not.toContain('ada-pass-12345');
      expect(await verifyPassword('ada-pass-12345', row.password_hash)).toBe(true);
    });

    it('user create accepts --password, and refuses a taken e-mail (exit 1) or no password at all (exit 2)', async () => {
      const ok = await cli(['user', 'create', '--email', 'bob@north.example', '--name', 'Bob', '--password', 'bob-pass-12345'], env);
      expect(ok.code).toBe(0);
      const taken = await cli(['user', 'create', '--email', 'BOB@north.example', '--name', 'Bob', '--password', 'bob-pass-12345'], env);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(/already exists/);
      const none = await cli(['user', 'create', '--email', 'carol@north.example', '--name', 'Carol'], env);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/SCHOOLGATE_NEW_PASSWORD/);
      // As long as POST /students allows a name to be, and no longer.
      const longName = await cli(
        ['user', 'create', '--email', 'dan@north.example', '--name', 'D'.repeat(201), '--password', 'dan-pass-12345'],
        env,
      );
      expect(longName.code).toBe(2);
      expect(longName.stderr).toMatch(/--name may be at most 200 characters/);
      const longest = await cli(
        ['user', 'create', '--email', 'dan@north.example', '--name', 'D'.repeat(200), '--password', 'dan-pass-12345'],
        env,
      );
      expect(longest.code).toBe(0);
    });

    it('role grant gives a role at one site only, and granting it again changes nothing', async () => {
      for (let i = 0; i < 2; i++) {
        const result = await cli(['role', 'grant', '--site', 'north', '--email', 'ada@north.example', '--role', 'lecturer'], env);
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('ada@north.example is lecturer at north');
      }
      const roles = await store.db
        .selectFrom('site_roles')
        .innerJoin('people', 'people.id', 'site_roles.person_id')
        .select(['site_roles.site_id', 'role'])
        .where('people.email', '=', 'ada@north.example')
        .execute();
      expect(roles).toEqual([{ site_id: await siteId('north'), role: 'lecturer' }]);
    });

    it('role grant refuses an unknown role (exit 2), an unknown person or an unknown site (exit 1)', async () => {
      const role = await cli(['role', 'grant', '--site', 'north', '--email', 'ada@north.example', '--role', 'janitor'], env);
      expect(role.code).toBe(2);
      expect(role.stderr).toMatch(/--role must be one of owner, admin, lecturer, student/);
      const person = await cli(['role', 'grant', '--site', 'north', '--email', 'nobody@north.example', '--role', 'student'], env);
      expect(person.code).toBe(1);
      expect(person.stderr).toMatch(/no person with e-mail nobody@north\.example/);
      const site = await cli(['role', 'grant', '--site', 'nowhere', '--email', 'ada@north.example', '--role', 'student'], env);
      expect(site.code).toBe(1);
      expect(site.stderr).toMatch(/no site with slug "nowhere"/);
    });

    it('role revoke takes one role away at one site, and revoking a role not held changes nothing', async () => {
      await cli(['role', 'grant', '--site', 'north', '--email', 'ada@north.example', '--role', 'admin'], env);
      const first = await cli(['role', 'revoke', '--site', 'north', '--email', 'ada@north.example', '--role', 'admin'], env);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('ada@north.example is no longer admin at north');
      const again = await cli(['role', 'revoke', '--site', 'north', '--email', 'ada@north.example', '--role', 'admin'], env);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('ada@north.example was not admin at north');
      const roles = await store.db
        .selectFrom('site_roles')
        .innerJoin('people', 'people.id', 'site_roles.person_id')
        .select('role')
        .where('people.email', '=', 'ada@north.example')
        .execute();
      expect(roles.map((r) => r.role)).toEqual(['lecturer']);
      const bad = await cli(['role', 'revoke', '--site', 'north', '--email', 'ada@north.example', '--role', 'janitor'], env);
      expect(bad.code).toBe(2);
    });

    it('client create prints a confidential secret once and stores only its SHA-256 hash, nowhere in clear', async () => {
      const result = await cli(
        [
          'client',
          'create',
          '--site',
          'north',
          '--name',
          'North Web',
          '--kind',
          'confidential',
          '--redirect-uri',
          'https://app.north.example/callback',
          '--redirect-uri',
          'http://127.0.0.1/callback',
          '--scope',
          'account:read openid profile',
        ],
        env,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const clientId = /client_id\s+(\S+)/.exec(result.stdout)?.[1];
      const secret = /client_secret\s+(\S+)/.exec(result.stdout)?.[1];
      expect(clientId).toBeDefined();
      expect(secret).toBeDefined();
      expect(secret!.length).toBeGreaterThanOrEqual(43);
      expect(result.stdout).toMatch(/shown this once/);

      const row = await store.db.selectFrom('member_clients').selectAll().where('client_id', '=', clientId!).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        site_id: await siteId('north'),
        name: 'North Web',
        kind: 'confidential',
        scopes: 'openid profile account:read',
      });
      expect(JSON.parse(row.redirect_uris)).toEqual(['https://app.north.example/callback', 'http://127.0.0.1/callback']);
      expect(row.secret_hash).toBe(hashToken(secret!));
      const everything = JSON.stringify([
        await store.db.selectFrom('member_clients').selectAll().execute(),
        await store.db.selectFrom('audit_events').selectAll().execute(),
      ]);
      expect(everything).not.toContain(secret!);

      const list = await cli(['client', 'list', '--site', 'north'], env);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(clientId!);
      expect(list.stdout).not.toContain(secret!);
      expect(list.stdout).not.toContain(row.secret_hash!);
    });

    it('client create makes a public app without a secret', async () => {
      const result = await cli(
        [
          'client',
          'create',
          '--site',
          'south',
          '--name',
          'South App',
          '--kind',
          'public',
          '--redirect-uri',
          'com.example.south:/cb',
          '--scope',
          'openid account:read',
        ],
        env,
      );
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/client_secret/);
      const clientId = /client_id\s+(\S+)/.exec(result.stdout)![1]!;
      const row = await store.db.selectFrom('member_clients').selectAll().where('client_id', '=', clientId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ kind: 'public', secret_hash: null, scopes: 'openid account:read' });
    });

    it('client create refuses scopes outside openid profile email account:read account:write (exit 2)', async () => {
      const result = await cli(
        [
          'client',
          'create',
          '--site',
          'north',
          '--name',
          'Greedy',
          '--kind',
          'public',
          '--redirect-uri',
          'http://127.0.0.1/cb',
          '--scope',
          'openid courses:read',
        ],
        env,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/courses:read not allowed/);
    });

    it('client create refuses http redirect URIs outside loopback and URIs with a fragment (exit 2)', async () => {
      for (const uri of ['http://app.north.example/cb', 'https://app.north.example/cb#x', 'javascript:alert(1)', '/relative']) {
        const result = await cli(
          ['client', 'create', '--site', 'north', '--name', 'Bad', '--kind', 'public', '--redirect-uri', uri, '--scope', 'openid'],
          env,
        );
        expect(result.code, uri).toBe(2);
      }
      const missing = await cli(['client', 'create', '--site', 'north', '--name', 'Bad', '--kind', 'public', '--scope', 'openid'], env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--redirect-uri is required|at least one --redirect-uri/);
    });

    it("client list shows only that site's apps", async () => {
      const south = await cli(['client', 'list', '--site', 'south'], env);
      expect(south.code).toBe(0);
      expect(south.stdout.trim().split('\n')).toHaveLength(1);
      expect(south.stdout).toContain('South App');
      expect(south.stdout).not.toContain('North Web');
    });

    it('keys rotate refuses a next key published less than the JWKS cache lifetime ago, unless --force is given', async () => {
      const before = await keyStates('north');
      const refused = await cli(['keys', 'rotate', '--site', 'north'], env, clock);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/next key was published less than \d+ s ago/);
      expect(await keyStates('north')).toEqual(before);
      const southBefore = await keyStates('south');
      const forced = await cli(['keys', 'rotate', '--site', 'south', '--force'], env, clock);
      expect(forced.code).toBe(0);
      expect(await keyStates('south')).not.toEqual(southBefore);
    });

    it('keys rotate activates the published next key, retires the active one and keeps it published for the ID token lifetime', async () => {
      const before = await keyStates('north');
      const active = before.find((k) => k.state === 'active')!.kid;
      const next = before.find((k) => k.state === 'next')!.kid;
      // Relying parties cache the JWKS for a minute: the next key must have been out that long.
      clock.advance(MIN_NEXT_KEY_AGE_SECONDS * 1000);
      const startedAt = clock.now();
      const result = await cli(['keys', 'rotate', '--site', 'north'], env, clock);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`activated\\s+${next}`));
      expect(result.stdout).toMatch(new RegExp(`retired\\s+${active}`));

      const after = await keyStates('north');
      expect(after.find((k) => k.kid === next)!.state).toBe('active');
      const retired = after.find((k) => k.kid === active)!;
      expect(retired.state).toBe('retired');
      expect(retired.publish_until).toBeGreaterThanOrEqual(startedAt + RETIRE_WINDOW_MS);
      expect(retired.publish_until).toBeLessThanOrEqual(clock.now() + RETIRE_WINDOW_MS);
      const newNext = after.filter((k) => k.state === 'next');
      expect(newNext).toHaveLength(1);
      expect(result.stdout).toMatch(new RegExp(`next\\s+${newNext[0]!.kid}`));

      const published = (await publishedKeys(store.db, await siteId('north'), clock)).map((k) => k.kid).sort();
      expect(published).toEqual([active, next, newNext[0]!.kid].sort());
    });

    it('keys rotate a second time retires the next key too and still keeps the first retired key', async () => {
      clock.advance(MIN_NEXT_KEY_AGE_SECONDS * 1000);
      const result = await cli(['keys', 'rotate', '--site', 'north'], env, clock);
      expect(result.code).toBe(0);
      const states = (await keyStates('north')).map((k) => k.state).sort();
      expect(states).toEqual(['active', 'next', 'retired', 'retired']);
    });

    it('keys rotate on another site leaves this one alone; an unknown site fails (exit 1)', async () => {
      const southBefore = await keyStates('south');
      const unknown = await cli(['keys', 'rotate', '--site', 'nowhere'], env);
      expect(unknown.code).toBe(1);
      expect(await keyStates('south')).toEqual(southBefore);
    });

    it('keys rotate refuses a SCHOOLGATE_SECRET that does not open the stored keys and leaves the keys as they were (exit 1)', async () => {
      const before = await keyStates('north');
      clock.advance(MIN_NEXT_KEY_AGE_SECONDS * 1000);
      const result = await cli(['keys', 'rotate', '--site', 'north'], { ...env, SCHOOLGATE_SECRET: OTHER_SECRET }, clock);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/SCHOOLGATE_SECRET does not open the signing keys stored in this database/);
      expect(await keyStates('north')).toEqual(before);
    });

    it('audit lists the key rotations and the client creation, newest first, one line per event', async () => {
      const result = await cli(['audit', '--site', 'north'], env);
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines.map((l) => l.split('\t')[1])).toEqual(['keys.rotated', 'keys.rotated', 'client.created']);
      const [at, , person, client, detail] = lines[0]!.split('\t');
      expect(new Date(at!).toISOString()).toBe(at);
      expect(person).toBe('-');
      expect(client).toBe('-');
      expect(Object.keys(JSON.parse(detail!) as object).sort()).toEqual(['activated', 'next', 'retired']);

      const limited = await cli(['audit', '--site', 'north', '--limit', '1'], env);
      expect(limited.stdout.trim().split('\n')).toHaveLength(1);
      const badLimit = await cli(['audit', '--site', 'north', '--limit', 'lots'], env);
      expect(badLimit.code).toBe(2);
    });

    it('a change whose announcement to the serving nodes cannot reach Redis is still done and reported (exit 0), with a warning on PostgreSQL', async () => {
      // Nothing listens on port 9 (discard) here.
      const unreachable = { ...env, REDIS_URL: 'redis://127.0.0.1:9' };
      const warning =
        dialect === 'postgres'
          ? /^warning: the change is saved, but the serving nodes could not be told through Redis .*within 60 s/
          : /^$/;
      const created = await cli(
        [
          'client',
          'create',
          '--site',
          'south',
          '--name',
          'South Kiosk',
          '--kind',
          'confidential',
          '--redirect-uri',
          'https://kiosk.south.example/cb',
          '--scope',
          'openid',
        ],
        unreachable,
      );
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toMatch(warning);
      const clientId = /client_id\s+(\S+)/.exec(created.stdout)?.[1];
      const secret = /client_secret\s+(\S+)/.exec(created.stdout)?.[1];
      const row = await store.db
        .selectFrom('member_clients')
        .select('secret_hash')
        .where('client_id', '=', clientId ?? '')
        .executeTakeFirst();
      expect(row?.secret_hash).toBe(hashToken(secret ?? ''));

      const granted = await cli(['role', 'grant', '--site', 'south', '--email', 'ada@north.example', '--role', 'admin'], unreachable);
      expect([granted.code, granted.stdout.trim()]).toEqual([0, 'ada@north.example is admin at south.']);
      expect(granted.stderr).toMatch(warning);
      const revoked = await cli(['role', 'revoke', '--site', 'south', '--email', 'ada@north.example', '--role', 'admin'], unreachable);
      expect([revoked.code, revoked.stdout.trim()]).toEqual([0, 'ada@north.example is no longer admin at south.']);
      expect(revoked.stderr).toMatch(warning);
    });

    // The last tests of this file: they move the stored keys to another secret.
    const sealedKeys = async () =>
      (await store.db.selectFrom('signing_keys').select(['kid', 'private_jwk_sealed']).orderBy('kid').execute()).map((r) => ({ ...r }));

    it('secret reseal needs SCHOOLGATE_PREVIOUS_SECRET (exit 2), and refuses one equal to SCHOOLGATE_SECRET', async () => {
      const without = await cli(['secret', 'reseal'], env);
      expect(without.code).toBe(2);
      expect(without.stderr).toMatch(/SCHOOLGATE_PREVIOUS_SECRET/);
      const same = await cli(['secret', 'reseal'], { ...env, SCHOOLGATE_PREVIOUS_SECRET: env.SCHOOLGATE_SECRET as string });
      expect(same.code).not.toBe(0);
      expect(same.stderr).toMatch(/SCHOOLGATE_PREVIOUS_SECRET: must differ/);
    });

    it('secret reseal with two secrets that open no stored key changes nothing (exit 1)', async () => {
      const before = await sealedKeys();
      const result = await cli(['secret', 'reseal'], {
        ...env,
        SCHOOLGATE_SECRET: OTHER_SECRET,
        SCHOOLGATE_PREVIOUS_SECRET: 'yet-another-secret-0123456789abcdefghijklmnopqrstuvw',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/opens with neither SCHOOLGATE_SECRET nor SCHOOLGATE_PREVIOUS_SECRET; nothing was changed/);
      expect(await sealedKeys()).toEqual(before);
    });

    it('secret reseal seals every stored key with the new secret: the commands then work with it alone and refuse the old one', async () => {
      const before = await sealedKeys();
      const moved = await cli(['secret', 'reseal'], {
        ...env,
        SCHOOLGATE_SECRET: OTHER_SECRET,
        SCHOOLGATE_PREVIOUS_SECRET: env.SCHOOLGATE_SECRET as string,
      });
      expect(moved.code).toBe(0);
      expect(moved.stdout).toContain(`Sealed ${before.length} signing keys with the new secret (0 already were).`);
      const after = await sealedKeys();
      expect(after.map((r) => r.kid)).toEqual(before.map((r) => r.kid));
      for (const [i, row] of after.entries()) expect(row.private_jwk_sealed).not.toBe(before[i]?.private_jwk_sealed);

      const again = await cli(['secret', 'reseal'], {
        ...env,
        SCHOOLGATE_SECRET: OTHER_SECRET,
        SCHOOLGATE_PREVIOUS_SECRET: env.SCHOOLGATE_SECRET as string,
      });
      expect(again.stdout).toContain(`Sealed 0 signing keys with the new secret (${before.length} already were).`);

      clock.advance(MIN_NEXT_KEY_AGE_SECONDS * 1000);
      expect((await cli(['keys', 'rotate', '--site', 'north'], env, clock)).code).toBe(1);
      expect((await cli(['keys', 'rotate', '--site', 'north'], { ...env, SCHOOLGATE_SECRET: OTHER_SECRET }, clock)).code).toBe(0);
    });
  });
}
