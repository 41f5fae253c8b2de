// The students list searched by name or e-mail (GET /students?q=) read every person and compared the text
// with each name and address: 24 ms for the total and 43 ms for a page on SQLite at 100,000 people, so the
// list served 12 requests a second (bench/RESULTS.md, fifteenth session). A trigram index finds the people
// whose name or address contains a text of three characters or more from the index alone.
//
// SQLite: an FTS5 table with the trigram tokenizer (a phrase matches where it occurs as a substring, in
// any case) holds each person's name and address, kept by triggers on people. Its rows are numbered by
// people_search_keys, whose integer key VACUUM keeps (the rowid of people, a table keyed by text, it may
// renumber), so a person's row is found by key when their name changes or they are deleted.
//
// PostgreSQL: pg_trgm's GIN indexes on the expressions the search compares, lower(name) and email, which
// LIKE '%text%' then reads. pg_trgm ships with PostgreSQL (contrib) and is a trusted extension, so the
// owner of the database may create it; where it cannot be created the migration leaves the search as it
// was (reading every person) and says so, in the database's log and as a warning of the migrating process.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  if (isSqlite(db)) {
    await sql`create table people_search_keys (n integer primary key, person_id text not null unique)`.execute(db);
    await sql`create virtual table people_search using fts5(person_id unindexed, name, email, tokenize = 'trigram')`.execute(db);
    const key = (row: 'new' | 'old') => sql.raw(`(select n from people_search_keys where person_id = ${row}.id)`);
    const add = sql`insert into people_search_keys (person_id) values (new.id);
      insert into people_search (rowid, person_id, name, email) values (${key('new')}, new.id, new.name, new.email);`;
    const remove = sql`delete from people_search where rowid = ${key('old')};
      delete from people_search_keys where person_id = old.id;`;
    await sql`create trigger people_searched_insert after insert on people begin ${add} end`.execute(db);
    await sql`create trigger people_searched_delete after delete on people begin ${remove} end`.execute(db);
    // Not on password or picture changes: only what the search reads.
    await sql`create trigger people_searched_update after update of id, name, email on people begin ${remove} ${add} end`.execute(db);
    await sql`insert into people_search_keys (person_id) select id from people`.execute(db);
    await sql`insert into people_search (rowid, person_id, name, email)
      select k.n, p.id, p.name, p.email from people p join people_search_keys k on k.person_id = p.id`.execute(db);
    return;
  }
  // A block with an exception handler runs in a savepoint of its own, so a refused extension does not
  // abort the migrations' transaction.
  await sql`do $$
    begin
      create extension if not exists pg_trgm;
      create index if not exists people_name_trigrams on people using gin (lower(name) gin_trgm_ops);
      create index if not exists people_email_trigrams on people using gin (email gin_trgm_ops);
    exception when others then
      raise warning 'schoolgate: pg_trgm is not available (%), so the students search reads every person', sqlerrm;
    end $$`.execute(db);
  const indexed = await sql`select 1 from pg_indexes where indexname = 'people_name_trigrams'`.execute(db);
  if (indexed.rows.length === 0)
    process.emitWarning(
      'pg_trgm is not available to this database, so the students search reads every person (README: Running on PostgreSQL)',
    );
}

export async function down(db: AnyDb): Promise<void> {
  if (isSqlite(db)) {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger if exists people_searched_${t}`).execute(db);
    await sql`drop table if exists people_search`.execute(db);
    await sql`drop table if exists people_search_keys`.execute(db);
    return;
  }
  // The extension stays: other databases' objects or an operator's may use it.
  await sql`drop index if exists people_name_trigrams`.execute(db);
  await sql`drop index if exists people_email_trigrams`.execute(db);
}
