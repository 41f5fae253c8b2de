// Issue 12, group commit (storage/group-commit.ts): units arriving together share one transaction on
// SQLite; every unit sees the writes before it; a unit that throws leaves nothing behind and the others
// still commit; nobody is answered before the commit. On PostgreSQL each unit is its own transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditStatement } from '../../src/audit/audit-log.js';
import { openStore, type Store } from '../../src/storage/connect.js';
import { GroupCommit } from '../../src/storage/group-commit.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { DIALECTS, freshDatabaseUrl, skipDialect } from '../helpers/dialects.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`group commit (${dialect})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let siteId: string;
    beforeAll(async () => {
      const db = await freshDatabaseUrl(dialect);
      cleanup = db.cleanup;
      store = openStore(db.url);
      await migrateToLatest(store);
      siteId = 'site_group_commit';
      await store.db
        .insertInto('sites')
        .values({ id: siteId, slug: 'gc', name: 'GC', origin: 'http://gc.test', variant: 'A', mcp_beta: 0, created_at: 1 })
        .execute();
    });
    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    const count = async (kind: string) =>
      Number(
        (
          await store.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('kind', '=', kind)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('commits every unit that finishes, undoes only the unit that throws, and answers each caller with its own outcome', async () => {
      const commit = new GroupCommit(store);
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          commit.run(function* (db) {
            yield auditStatement(db, { siteId, kind: 'operator.group_commit_test', detail: { i } }, 1);
            if (i === 7) throw new Error('unit 7 fails after its write');
            return i;
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value)).toEqual(
        Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 7),
      );
      expect(results[7]?.status).toBe('rejected');
      expect(await count('operator.group_commit_test')).toBe(29);
      if (dialect === 'sqlite') {
        // Thirty units that arrived together took far fewer transactions than thirty; the batch with the
        // throwing unit ran again unit by unit, and nothing was written twice.
        expect(commit.stats.units).toBe(30);
        expect(commit.stats.transactions).toBeLessThan(5);
        expect(commit.stats.reruns).toBe(1);
      }
    });

    // SQLite only: on PostgreSQL units are concurrent transactions, ordered by their row locks instead.
    if (dialect === 'sqlite')
      it('lets a unit see the writes of the units before it in the same transaction', async () => {
        const commit = new GroupCommit(store);
        const seen = await Promise.all(
          Array.from({ length: 5 }, () =>
            commit.run(function* (db) {
              const before = (yield db
                .selectFrom('audit_events')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('kind', '=', 'operator.group_commit_order')
                .compile()).rows[0] as { n: number | string };
              yield auditStatement(db, { siteId, kind: 'operator.group_commit_order' }, 1);
              return Number(before.n);
            }),
          ),
        );
        expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
        // No unit threw: the batch committed as one plain transaction, without running again.
        expect(commit.stats.reruns).toBe(0);
      });

    if (dialect === 'sqlite')
      it('rejects every unit of a batch whose transaction fails, without running it again unit by unit', async () => {
        const commit = new GroupCommit({
          db: store.db,
          // A transaction that fails of itself, as a full disk makes a commit fail.
          sqliteTransaction: () => {
            throw new Error('disk I/O error');
          },
        });
        const results = await Promise.allSettled(
          Array.from({ length: 3 }, () =>
            commit.run(function* (db) {
              yield auditStatement(db, { siteId, kind: 'operator.group_commit_commit_fails' }, 1);
              return true;
            }),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
        expect(commit.stats.reruns).toBe(0);
      });
  });
}
