// What a member bought at a site: digital products and consulting services (SPEC 2.1; SPEC 2.2 rule:
// these are not order records, so nothing here carries an order number, coupon, refund or invoice).
import type { MemberScope } from './scope.js';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';

export interface DigitalProductPurchaseRecord {
  id: string;
  productId: string;
  title: string;
  kind: string;
  purchasedAt: number;
}

export interface ConsultingPurchaseRecord {
  id: string;
  serviceId: string;
  title: string;
  kind: string;
  durationMinutes: number;
  purchasedAt: number;
}

const PRODUCTS = 'digital_product_purchases';
const SERVICES = 'consulting_purchases';

/** The member's digital products at this site, most recent purchase first. */
export async function listDigitalProductPurchases(scope: MemberScope, request: PageRequest): Promise<Page<DigitalProductPurchaseRecord>> {
  const { size, after } = pageQuery(PRODUCTS, request);
  const rows = await scope.db
    .selectFrom('digital_product_purchases as p')
    .innerJoin('digital_products as d', (join) => join.onRef('d.id', '=', 'p.product_id').on('d.site_id', '=', scope.siteId))
    .where('p.site_id', '=', scope.siteId)
    .where('p.person_id', '=', scope.personId)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('p.purchased_at', '<', after!.sort), eb.and([eb('p.purchased_at', '=', after!.sort), eb('p.id', '<', after!.id)])]),
      ),
    )
    .select(['p.id', 'p.product_id', 'p.purchased_at', 'd.title', 'd.kind'])
    .orderBy('p.purchased_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(size + 1)
    .execute();
  const records = rows.map(
    (row): DigitalProductPurchaseRecord => ({
      id: row.id,
      productId: row.product_id,
      title: row.title,
      kind: row.kind,
      purchasedAt: row.purchased_at,
    }),
  );
  return toPage(PRODUCTS, records, size, (r) => ({ sort: r.purchasedAt, id: r.id }));
}

export async function countDigitalProductPurchases(scope: MemberScope): Promise<number> {
  const row = await scope.db
    .selectFrom('digital_product_purchases')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The member's consulting services at this site, most recent purchase first. */
export async function listConsultingPurchases(scope: MemberScope, request: PageRequest): Promise<Page<ConsultingPurchaseRecord>> {
  const { size, after } = pageQuery(SERVICES, request);
  const rows = await scope.db
    .selectFrom('consulting_purchases as p')
    .innerJoin('consulting_services as s', (join) => join.onRef('s.id', '=', 'p.service_id').on('s.site_id', '=', scope.siteId))
    .where('p.site_id', '=', scope.siteId)
    .where('p.person_id', '=', scope.personId)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('p.purchased_at', '<', after!.sort), eb.and([eb('p.purchased_at', '=', after!.sort), eb('p.id', '<', after!.id)])]),
      ),
    )
    .select(['p.id', 'p.service_id', 'p.purchased_at', 's.title', 's.kind', 's.duration_minutes'])
    .orderBy('p.purchased_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(size + 1)
    .execute();
  const records = rows.map(
    (row): ConsultingPurchaseRecord => ({
      id: row.id,
      serviceId: row.service_id,
      title: row.title,
      kind: row.kind,
      durationMinutes: row.duration_minutes,
      purchasedAt: row.purchased_at,
    }),
  );
  return toPage(SERVICES, records, size, (r) => ({ sort: r.purchasedAt, id: r.id }));
}

export async function countConsultingPurchases(scope: MemberScope): Promise<number> {
  const row = await scope.db
    .selectFrom('consulting_purchases')
    .where('site_id', '=', scope.siteId)
    .where('person_id', '=', scope.personId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
