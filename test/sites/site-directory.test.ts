// The site directory (issue 12: sites looked up by origin, kept a few seconds, emptied by a `flush`): a
// lookup after a flush reads the store again and never joins a read that began before the flush, which
// may hold the site as it was before the change (the MCP connections switch reaching another node).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/kernel/clock.js';
import { SiteDirectory } from '../../src/sites/site-directory.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { openSchoolStore, type SchoolStore } from '../helpers/school-fixtures.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`site directory (${dialect})`, () => {
    let store: SchoolStore;
    const origin = 'http://directory.test';
    beforeAll(async () => {
      store = await openSchoolStore(dialect);
      await store.db
        .insertInto('sites')
        .values({ id: 'site_directory', slug: 'dir', name: 'Directory', origin, variant: 'A', mcp_beta: 1, created_at: 1 })
        .execute();
    });
    afterAll(() => store?.close());

    it('answers from memory until a flush, then reads the change, even with a read in flight at the flush', async () => {
      const directory = new SiteDirectory(store.db, systemClock);
      expect((await directory.byOriginOf(origin))?.mcpBeta).toBe(true);
      // Kept: the same object again, no read.
      const kept = directory.byOriginOf(origin);
      expect(kept).not.toBeInstanceOf(Promise);

      await store.db.updateTable('sites').set({ mcp_beta: 0 }).where('id', '=', 'site_directory').execute();
      // Still the remembered site until the change's flush arrives.
      expect((directory.byOriginOf(origin) as { mcpBeta: boolean }).mcpBeta).toBe(true);
      directory.invalidate();
      const before = directory.byOriginOf(origin); // a read begins...
      directory.invalidate(); // ...and another flush arrives while it is in flight
      const after = directory.byOriginOf(origin);
      expect(after).toBeInstanceOf(Promise);
      expect(after).not.toBe(before);
      expect((await after)?.mcpBeta).toBe(false);
      await before;
    });

    it('answers with the last site it knew when the store fails after a flush', async () => {
      const own = await openSchoolStore(dialect);
      await own.db
        .insertInto('sites')
        .values({ id: 'site_fault', slug: 'fault', name: 'Fault', origin: 'http://fault.test', variant: 'A', mcp_beta: 1, created_at: 1 })
        .execute();
      const directory = new SiteDirectory(own.db, systemClock);
      expect((await directory.byOriginOf('http://fault.test'))?.name).toBe('Fault');
      directory.invalidate();
      await own.close(); // every later read fails
      expect((await directory.byOriginOf('http://fault.test'))?.name).toBe('Fault');
      await expect(directory.byOriginOf('http://never-seen.test')).rejects.toThrow();
    });
  });
}
