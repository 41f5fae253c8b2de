// The authorization server's tables. Written with Kysely's schema builder so both dialects share it.
import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/**
 * SQLite: tables keyed by a token hash keep their rows in the key's own b-tree (WITHOUT ROWID), so an
 * insert writes one b-tree instead of two. Every page written is a write to the WAL, and issuing
 * tokens is the busiest write path. PostgreSQL has no such option and needs none. (Migration 017 turns
 * the token tables back into rowid tables: their random keys made every insert a page of its own.)
 */
function withoutRowId(db: AnyDb, builder: CreateTableBuilder<string, string>): CreateTableBuilder<string, string> {
  return isSqlite(db) ? builder.modifyEnd(sql`without rowid`) : builder;
}

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull().unique())
    .addColumn('variant', 'text', (c) => c.notNull().check(sql`variant in ('A', 'B')`))
    .addColumn('mcp_beta', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('people')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('picture_url', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('site_roles')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'lecturer', 'student')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_roles_pk', ['site_id', 'person_id', 'role'])
    .execute();
  await db.schema.createIndex('site_roles_person').on('site_roles').columns(['person_id']).execute();

  await withoutRowId(
    db,
    db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
      .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull()),
  ).execute();

  await db.schema
    .createTable('sign_in_throttle')
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sign_in_throttle_pk', ['site_id', 'email'])
    .execute();

  await db.schema
    .createTable('member_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('public', 'confidential')`))
    .addColumn('secret_hash', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('member_clients_site').on('member_clients').columns(['site_id']).execute();

  await db.schema
    .createTable('consents')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('consents_pk', ['site_id', 'person_id', 'client_id'])
    .execute();

  await db.schema
    .createTable('grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();

  await withoutRowId(
    db,
    db.schema
      .createTable('authorization_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
      .addColumn('redirect_uri', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('code_challenge', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text')
      .addColumn('auth_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('consumed_at', 'bigint')
      .addColumn('grant_id', 'text'),
  ).execute();

  for (const table of ['access_tokens', 'refresh_tokens'] as const) {
    let builder = db.schema
      .createTable(table)
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
      .addColumn('grant_id', 'text', (c) => c.notNull().references('grants.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('person_id', 'text', (c) => c.notNull().references('people.id').onDelete('cascade'))
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint');
    if (table === 'refresh_tokens') {
      builder = builder.addColumn('rotated_at', 'bigint').addColumn('replay_sealed', 'text').addColumn('replay_until', 'bigint');
    }
    await withoutRowId(db, builder).execute();
    await db.schema.createIndex(`${table}_grant`).on(table).columns(['grant_id']).execute();
  }

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('next', 'active', 'retired')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('activated_at', 'bigint')
    .addColumn('publish_until', 'bigint')
    .execute();
  await db.schema.createIndex('signing_keys_site').on('signing_keys').columns(['site_id', 'state']).execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'integer', (c) => (isSqlite(db) ? c.primaryKey() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_site_at').on('audit_events').columns(['site_id', 'at']).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    'audit_events',
    'signing_keys',
    'refresh_tokens',
    'access_tokens',
    'authorization_codes',
    'grants',
    'consents',
    'member_clients',
    'sign_in_throttle',
    'sessions',
    'site_roles',
    'people',
    'sites',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
