// The demo of CONTRACT 3: two sites on one listener, four people, their roles, three member apps, school data.
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../kernel/password.js';
import { seedDemoHistory } from './school/history.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { createMemberApp } from '../clients/member-apps.repository.js';
import { initialiseSiteKeys } from '../keys/signing-keys.js';
import { grantRole, insertPerson, normaliseEmail, type Role } from '../people/people.repository.js';
import { variantCapabilities, type Variant } from '../sites/site.js';
import { insertSite } from '../sites/sites.repository.js';
import type { Database } from '../storage/schema.js';
import { seedDemoSchool } from '../school/seed-demo-school.js';

type DemoSiteKey = 'academy' | 'studio';

interface DemoSiteSpec {
  key: DemoSiteKey;
  slug: string;
  name: string;
  host: 'localhost' | '127.0.0.1';
  variant: Variant;
}

const DEMO_SITES: readonly DemoSiteSpec[] = [
  { key: 'academy', slug: 'demo-academy', name: 'Demo Academy', host: 'localhost', variant: 'A' },
  { key: 'studio', slug: 'demo-studio', name: 'Demo Studio', host: '127.0.0.1', variant: 'B' },
];

type DemoPersonKey = 'owner' | 'student' | 'lecturer' | 'visitor';

interface DemoPersonSpec {
  key: DemoPersonKey;
  email: string;
  password: string;
  name: string;
  /** The first role decides which site serves the avatar. */
  roles: readonly { site: DemoSiteKey; role: Role }[];
}

const DEMO_PEOPLE: readonly DemoPersonSpec[] = [
  {
    key: 'owner',
    email: 'owner@demo.test',
    password: 'owner-pass-123',
    name: 'Olivia Owner',
    roles: [
      { site: 'academy', role: 'owner' },
      { site: 'studio', role: 'admin' },
    ],
  },
  {
    key: 'student',
    email: 'student@demo.test',
    password: 'student-pass-123',
    name: 'Sam Student',
    roles: [
      { site: 'academy', role: 'student' },
      { site: 'studio', role: 'student' },
    ],
  },
  {
    key: 'lecturer',
    email: 'lecturer@demo.test',
    password: 'lecturer-pass-123',
    name: 'Lena Lecturer',
    roles: [{ site: 'academy', role: 'lecturer' }],
  },
  {
    key: 'visitor',
    email: 'visitor@demo.test',
    password: 'visitor-pass-123',
    name: 'Victor Visitor',
    roles: [{ site: 'studio', role: 'student' }],
  },
];

/** The scopes every demo member app was granted (CONTRACT 3). */
export const DEMO_MEMBER_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'account:read', 'account:write'];

// Loopback redirect URIs match on any port (RFC 8252 7.3), so the registered ones carry none.
const LOOPBACK_CALLBACKS: readonly string[] = ['http://127.0.0.1/callback', 'http://localhost/callback'];

interface DemoAppSpec {
  clientId: string;
  site: DemoSiteKey;
  name: string;
  kind: 'public' | 'confidential';
  secret: string | null;
  redirectUris: readonly string[];
}

const DEMO_APPS: readonly DemoAppSpec[] = [
  {
    clientId: 'academy-member-app',
    site: 'academy',
    name: 'Academy Member App',
    kind: 'public',
    secret: null,
    redirectUris: LOOPBACK_CALLBACKS,
  },
  {
    clientId: 'academy-member-web',
    site: 'academy',
    name: 'Academy Member Web',
    kind: 'confidential',
    secret: 'academy-member-secret',
    redirectUris: ['http://127.0.0.1:8976/callback'],
  },
  {
    clientId: 'studio-member-app',
    site: 'studio',
    name: 'Studio Member App',
    kind: 'public',
    secret: null,
    redirectUris: LOOPBACK_CALLBACKS,
  },
];

export interface DemoSiteSummary {
  slug: string;
  name: string;
  origin: string;
  variant: Variant;
  graphqlPath: string;
  discoveryUrl: string;
}

export interface DemoAccountSummary {
  email: string;
  password: string;
  name: string;
  /** e.g. `owner at demo-academy, admin at demo-studio` */
  roles: string;
}

export interface DemoClientSummary {
  clientId: string;
  site: string;
  kind: 'public' | 'confidential';
  /** The fixed demo secret; only its hash is stored. */
  secret: string | null;
  redirectUris: string[];
  scopes: string;
}

export interface DemoSummary {
  sites: DemoSiteSummary[];
  accounts: DemoAccountSummary[];
  clients: DemoClientSummary[];
}

function demoOrigin(site: DemoSiteSpec, port: number): string {
  return `http://${site.host}:${port}`;
}

function siteSpec(key: DemoSiteKey): DemoSiteSpec {
  const spec = DEMO_SITES.find((s) => s.key === key);
  if (!spec) throw new Error(`unknown demo site ${key}`);
  return spec;
}

function avatarUrl(person: DemoPersonSpec, port: number): string {
  const first = person.roles[0];
  if (!first) throw new Error(`demo person ${person.key} has no role`);
  return `${demoOrigin(siteSpec(first.site), port)}/avatars/${person.key}.svg`;
}

/** What the demo holds on this port: what `serve --demo` and `seed --demo` print. */
export function demoSummary(port: number): DemoSummary {
  return {
    sites: DEMO_SITES.map((s) => {
      const origin = demoOrigin(s, port);
      return {
        slug: s.slug,
        name: s.name,
        origin,
        variant: s.variant,
        graphqlPath: variantCapabilities(s.variant).graphqlPath,
        discoveryUrl: `${origin}/.well-known/openid-configuration`,
      };
    }),
    accounts: DEMO_PEOPLE.map((p) => ({
      email: p.email,
      password: p.password,
      name: p.name,
      roles: p.roles.map((r) => `${r.role} at ${siteSpec(r.site).slug}`).join(', '),
    })),
    clients: DEMO_APPS.map((a) => ({
      clientId: a.clientId,
      site: siteSpec(a.site).slug,
      kind: a.kind,
      secret: a.secret,
      redirectUris: [...a.redirectUris],
      scopes: DEMO_MEMBER_SCOPES.join(' '),
    })),
  };
}

/** True when no site exists yet: the only state in which the demo may be seeded. */
export async function databaseIsEmpty(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('sites').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

export interface SeedDemoDeps {
  db: Kysely<Database>;
  /** The signing-key encryption key (signingKeyEncryptionKey(config.secret)). */
  masterKey: Buffer;
  clock: Clock;
  port: number;
}

/**
 * Creates the whole demo of CONTRACT 3, school data (seedDemoSchool) included, in one transaction, so a
 * failure leaves the database empty (and seedable) rather than half-seeded. The caller checks databaseIsEmpty first.
 */
export async function seedDemo(deps: SeedDemoDeps): Promise<DemoSummary> {
  const { masterKey, clock, port } = deps;
  await deps.db.transaction().execute(async (trx) => {
    const siteIds = new Map<DemoSiteKey, string>();
    for (const spec of DEMO_SITES) {
      const site = await insertSite(
        trx,
        { slug: spec.slug, name: spec.name, origin: demoOrigin(spec, port), variant: spec.variant, mcpBeta: true },
        clock,
      );
      await initialiseSiteKeys(trx, site.id, masterKey, clock);
      siteIds.set(spec.key, site.id);
    }
    const siteId = (key: DemoSiteKey): string => {
      const id = siteIds.get(key);
      if (!id) throw new Error(`demo site ${key} was not created`);
      return id;
    };

    const personIds = new Map<DemoPersonKey, string>();
    for (const spec of DEMO_PEOPLE) {
      const person = await insertPerson(
        trx,
        { email: spec.email, name: spec.name, password: spec.password, pictureUrl: avatarUrl(spec, port) },
        clock,
      );
      for (const r of spec.roles) await grantRole(trx, siteId(r.site), person.id, r.role, clock);
      personIds.set(spec.key, person.id);
    }

    for (const app of DEMO_APPS) {
      await createMemberApp(
        trx,
        {
          siteId: siteId(app.site),
          clientId: app.clientId,
          name: app.name,
          kind: app.kind,
          redirectUris: [...app.redirectUris],
          scopes: [...DEMO_MEMBER_SCOPES],
          ...(app.secret ? { secret: app.secret } : {}),
        },
        clock,
      );
    }

    const personId = (key: DemoPersonKey): string => {
      const id = personIds.get(key);
      if (!id) throw new Error(`demo person ${key} was not created`);
      return id;
    };
    await seedDemoSchool(
      trx,
      {
        academySiteId: siteId('academy'),
        studioSiteId: siteId('studio'),
        studentId: personId('student'),
        lecturerId: personId('lecturer'),
        ownerId: personId('owner'),
        visitorId: personId('visitor'),
      },
      clock.now(),
    );
    // A year of orders, enrollments and progress at the Academy; its learners get a password nobody knows.
    await seedDemoHistory(trx, siteId('academy'), clock.now(), await hashPassword(randomBytes(24).toString('base64url')));
  });
  return demoSummary(port);
}

// A demo avatar URL as seedDemo writes it; only these follow the port, so an edited picture stays.
const DEMO_AVATAR = /^http:\/\/(localhost|127\.0\.0\.1):\d+\/avatars\/[a-z]+\.svg$/;

/**
 * In demo mode the demo sites' origins (and the demo avatars they serve) follow PORT at each start,
 * so a restart on another port keeps working (CONTRACT 3). Sites or people that are gone are skipped.
 */
export async function alignDemoOrigins(db: Kysely<Database>, port: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const spec of DEMO_SITES) {
      await trx
        .updateTable('sites')
        .set({ origin: demoOrigin(spec, port) })
        .where('slug', '=', spec.slug)
        .execute();
    }
    for (const spec of DEMO_PEOPLE) {
      const row = await trx
        .selectFrom('people')
        .select(['id', 'picture_url'])
        .where('email', '=', normaliseEmail(spec.email))
        .executeTakeFirst();
      if (!row?.picture_url || !DEMO_AVATAR.test(row.picture_url)) continue;
      await trx
        .updateTable('people')
        .set({ picture_url: avatarUrl(spec, port) })
        .where('id', '=', row.id)
        .execute();
    }
  });
}
