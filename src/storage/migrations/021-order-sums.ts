// A range's orders summary (GET /orders/summary: count, gross, discounts, refunds, by status) read every
// order of the range: 150 ms for a month at a million orders on SQLite, 1.9 s for a year, and 5 requests a
// second under load (bench/RESULTS.md, twelfth session). Now the orders' triggers keep, per site, hour and
// day (UTC, counted since the epoch) and status, the number of orders and the sums of their totals,
// discounts and refunds in order_sums. A summary adds its range's whole days, then the whole hours left at
// either end, from there, and reads only the ragged ends (under an hour each) from the orders: a year is
// about 365 day rows and 48 hour rows. Hours as well as days because a range from one local midnight to
// another starts and ends inside a UTC day but on a whole hour in every time zone with a whole-hour offset.
//
// As for order_counts (migration 020), triggers so every writer keeps the sums in step (an order placed, a
// refund, a site's deletion, a bulk import), and on PostgreSQL each connection writes its own slot (process
// id modulo 16) so concurrent orders in one hour do not queue on one row; a summary sums the slots.
import { type Kysely, sql } from 'kysely';
import { isSqlite } from '../dialect.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving Database type
type AnyDb = Kysely<any>;

/** The bucket sizes, as a two-row table; a bucket is created_at / ms (integer division). */
const UNITS = `(select 'hour' as unit, 3600000 as ms union all select 'day', 86400000)`;
const SUMMED = ['total_cents', 'discount_cents', 'refunded_cents'] as const;
/** What a conflicting row's upsert does: add the new amounts to it. */
const ADD_ON_CONFLICT = `on conflict (site_id, unit, bucket, status, slot) do update set n = order_sums.n + excluded.n, ${SUMMED.map((c) => `${c} = order_sums.${c} + excluded.${c}`).join(', ')}`;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('order_sums')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('discount_cents', 'bigint', (c) => c.notNull())
    .addColumn('refunded_cents', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_sums_pk', ['site_id', 'unit', 'bucket', 'status', 'slot'])
    .$call((table) => (isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table))
    .execute();
  if (isSqlite(db)) {
    // A removal is an update, not an upsert: during a site's deletion its sums may already be gone, and a
    // new row would name a deleted site.
    const add = sql.raw(`insert into order_sums select new.site_id, u.unit, new.created_at / u.ms, new.status, 0, 1,
        new.total_cents, new.discount_cents, new.refunded_cents from ${UNITS} u where true
      ${ADD_ON_CONFLICT};`);
    const remove = sql.raw(`update order_sums set n = n - 1, ${SUMMED.map((c) => `${c} = ${c} - old.${c}`).join(', ')}
      where site_id = old.site_id and status = old.status and slot = 0
        and (unit, bucket) in (select u.unit, old.created_at / u.ms from ${UNITS} u);`);
    await sql`create trigger orders_summed_insert after insert on orders begin ${add} end`.execute(db);
    await sql`create trigger orders_summed_delete after delete on orders begin ${remove} end`.execute(db);
    await sql`create trigger orders_summed_update after update of site_id, created_at, status, total_cents, discount_cents, refunded_cents
      on orders when old.site_id is not new.site_id or old.created_at is not new.created_at or old.status is not new.status
        or old.total_cents is not new.total_cents or old.discount_cents is not new.discount_cents
        or old.refunded_cents is not new.refunded_cents
      begin ${remove} ${add} end`.execute(db);
  } else {
    // Once per statement over the rows it changed (transition tables). Additions go to the connection's
    // slot, ordered by key so two statements sharing a slot lock rows in one order. A deletion takes from
    // the lowest slot of its key (which exists, since the order was summed) with an update, not an
    // upsert: during a site's deletion its sums may already be gone.
    await sql`create function order_sums_kept() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          update order_sums s set n = s.n - d.n, total_cents = s.total_cents - d.total_cents,
              discount_cents = s.discount_cents - d.discount_cents, refunded_cents = s.refunded_cents - d.refunded_cents
            from (select r.site_id, u.unit, r.created_at / u.ms as bucket, r.status, count(*) as n, sum(r.total_cents) as total_cents,
                    sum(r.discount_cents) as discount_cents, sum(r.refunded_cents) as refunded_cents
                  from removed r cross join ${sql.raw(UNITS)} u group by 1, 2, 3, 4) d
            where s.site_id = d.site_id and s.unit = d.unit and s.bucket = d.bucket and s.status = d.status
              and s.slot = (select min(x.slot) from order_sums x
                            where x.site_id = d.site_id and x.unit = d.unit and x.bucket = d.bucket and x.status = d.status);
        else
          insert into order_sums (site_id, unit, bucket, status, slot, n, total_cents, discount_cents, refunded_cents)
            select a.site_id, u.unit, a.created_at / u.ms, a.status, pg_backend_pid() % 16, count(*), sum(a.total_cents),
                sum(a.discount_cents), sum(a.refunded_cents)
              from added a cross join ${sql.raw(UNITS)} u group by 1, 2, 3, 4 order by 1, 2, 3, 4
            ${sql.raw(ADD_ON_CONFLICT)};
        end if;
        return null;
      end $$`.execute(db);
    // An update adds, in the connection's slot, the difference it made to each key: minus each changed
    // order as it was, plus as it is (matched by id, which never changes). A slot's row may go negative;
    // only the sum over slots means anything. Orders whose summed columns did not change (a coupon, a
    // payment date) touch no row.
    await sql`create function order_sums_moved() returns trigger language plpgsql as $$
      begin
        insert into order_sums (site_id, unit, bucket, status, slot, n, total_cents, discount_cents, refunded_cents)
          select c.site_id, u.unit, c.created_at / u.ms, c.status, pg_backend_pid() % 16, sum(c.n), sum(c.total_cents),
              sum(c.discount_cents), sum(c.refunded_cents)
            from (
              select a.site_id, a.created_at, a.status, 1 as n, a.total_cents, a.discount_cents, a.refunded_cents
                from added a join removed r on r.id = a.id
                where (a.site_id, a.created_at, a.status, a.total_cents, a.discount_cents, a.refunded_cents)
                  is distinct from (r.site_id, r.created_at, r.status, r.total_cents, r.discount_cents, r.refunded_cents)
              union all
              select r.site_id, r.created_at, r.status, -1, -r.total_cents, -r.discount_cents, -r.refunded_cents
                from removed r join added a on a.id = r.id
                where (a.site_id, a.created_at, a.status, a.total_cents, a.discount_cents, a.refunded_cents)
                  is distinct from (r.site_id, r.created_at, r.status, r.total_cents, r.discount_cents, r.refunded_cents)
            ) c cross join ${sql.raw(UNITS)} u
            group by 1, 2, 3, 4 order by 1, 2, 3, 4
          ${sql.raw(ADD_ON_CONFLICT)};
        return null;
      end $$`.execute(db);
    await sql`create trigger orders_summed_insert after insert on orders
      referencing new table as added for each statement execute function order_sums_kept()`.execute(db);
    await sql`create trigger orders_summed_delete after delete on orders
      referencing old table as removed for each statement execute function order_sums_kept()`.execute(db);
    await sql`create trigger orders_summed_update after update on orders
      referencing old table as removed new table as added for each statement execute function order_sums_moved()`.execute(db);
  }
  // After the triggers: on PostgreSQL creating them locks out writers until this transaction commits.
  await sql`insert into order_sums (site_id, unit, bucket, status, slot, n, total_cents, discount_cents, refunded_cents)
    select o.site_id, u.unit, o.created_at / u.ms, o.status, 0, count(*), sum(o.total_cents), sum(o.discount_cents), sum(o.refunded_cents)
    from orders o cross join ${sql.raw(UNITS)} u group by o.site_id, u.unit, o.created_at / u.ms, o.status`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of ['insert', 'delete', 'update'])
    await sql
      .raw(isSqlite(db) ? `drop trigger if exists orders_summed_${t}` : `drop trigger if exists orders_summed_${t} on orders`)
      .execute(db);
  if (!isSqlite(db)) {
    await sql`drop function if exists order_sums_kept()`.execute(db);
    await sql`drop function if exists order_sums_moved()`.execute(db);
  }
  await db.schema.dropTable('order_sums').execute();
}
