// storage/sqlite-statement-runner.ts: the hot statements' rows are read as arrays and built by a constructor per
// statement; they must be exactly the objects better-sqlite3 itself gives, whatever the columns hold or
// are called.
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { statementRunner } from '../../src/storage/sqlite-statement-runner.js';

const sqlite = new SQLite(':memory:');
sqlite.exec(`create table t (id integer primary key, name text, score real, data blob, note text);
  insert into t values (1, 'a', 1.5, x'00ff', null), (2, 'it''s "quoted"', -2, null, 'n');`);
afterAll(() => sqlite.close());
const run = statementRunner(sqlite);
const read = (sql: string) => (parameters: unknown[]) => run(sql, parameters).rows;

describe('SQLite rows read as arrays and built per statement', () => {
  it('answers the same rows as better-sqlite3 for every column type, null and quoted text', () => {
    const text = 'select id, name, score, data, note from t where id >= ? order by id';
    expect(read(text)([1])).toEqual(sqlite.prepare(text).all(1));
    expect(read(text)([2])).toEqual(sqlite.prepare(text).all(2));
  });

  it('keeps the last of two columns of the same name, as better-sqlite3 does', () => {
    const text = 'select id as x, name as x from t where id = ?';
    expect(read(text)([1])).toEqual(sqlite.prepare(text).all(1));
    expect(read(text)([1])).toEqual([{ x: 'a' }]);
  });

  it('builds columns whose names need quoting, and never takes a column named __proto__ as a prototype', () => {
    const quoted = `select id as "a""b", name as "x y", note as "\\u2028" from t where id = 2`;
    expect(read(quoted)([])).toEqual(sqlite.prepare(quoted).all());
    const proto = 'select name as __proto__, id from t where id = 1';
    const [row] = read(proto)([]) as Array<Record<string, unknown>>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(row)).toEqual(Object.getOwnPropertyNames(sqlite.prepare(proto).get()));
  });

  it('answers no rows as an empty list and reads statements that return rows from a write', () => {
    expect(read('select id from t where id = ?')([99])).toEqual([]);
    expect(read('insert into t (name) values (?) returning id, name')(['new'])).toEqual([{ id: 3, name: 'new' }]);
  });
});
