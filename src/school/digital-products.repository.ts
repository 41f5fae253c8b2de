// Digital products as operators manage them (CONTRACT 6 digital_products): every product in any state,
// create (a draft), edit, publish, archive (hidden from sale; buyers keep it), and a product's purchasers.
// Each write is one statement filtered by the site, then the product is read again as stored.
import { randomUUID } from 'node:crypto';
import { type Page, type PageRequest, pageQuery, toPage } from './paging.js';
import type { SiteScope } from './scope.js';
import { slugTaken } from './slugs.js';

export interface OperatorDigitalProduct {
  id: string;
  slug: string;
  title: string;
  kind: string;
  description: string;
  priceCents: number;
  currency: string;
  state: 'draft' | 'published' | 'archived';
  purchaseCount: number;
  createdAt: number;
  updatedAt: number | null;
}

export interface DigitalProductFields {
  slug: string;
  title: string;
  kind: string;
  description: string;
  priceCents: number;
  currency: string;
}

const LIST = 'operator_digital_products';
const COLUMNS = [
  'id',
  'slug',
  'title',
  'kind',
  'description',
  'price_cents',
  'currency',
  'published',
  'archived_at',
  'created_at',
  'updated_at',
] as const;

type Row = {
  id: string;
  slug: string;
  title: string;
  kind: string;
  description: string;
  price_cents: number;
  currency: string;
  published: number;
  archived_at: number | null;
  created_at: number;
  updated_at: number | null;
};

async function purchaseCounts(scope: SiteScope, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await scope.db
    .selectFrom('digital_product_purchases')
    .where('site_id', '=', scope.siteId)
    .where('product_id', 'in', [...ids])
    .groupBy('product_id')
    .select((eb) => ['product_id', eb.fn.countAll().as('n')])
    .execute();
  return new Map(rows.map((r) => [r.product_id, Number(r.n)]));
}

function toProduct(row: Row, purchases: number): OperatorDigitalProduct {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    kind: row.kind,
    description: row.description,
    priceCents: Number(row.price_cents),
    currency: row.currency,
    state: row.archived_at !== null ? 'archived' : row.published === 1 ? 'published' : 'draft',
    purchaseCount: purchases,
    createdAt: Number(row.created_at),
    updatedAt: row.updated_at === null ? null : Number(row.updated_at),
  };
}

export async function listDigitalProducts(scope: SiteScope, request: PageRequest): Promise<Page<OperatorDigitalProduct>> {
  const { size, after } = pageQuery(LIST, request);
  const rows = await scope.db
    .selectFrom('digital_products')
    .where('site_id', '=', scope.siteId)
    .$if(after !== null, (qb) =>
      qb.where((eb) => eb.or([eb('created_at', '<', after!.sort), eb.and([eb('created_at', '=', after!.sort), eb('id', '<', after!.id)])])),
    )
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const counts = await purchaseCounts(
    scope,
    rows.map((r) => r.id),
  );
  return toPage(
    LIST,
    rows.map((r) => toProduct(r, counts.get(r.id) ?? 0)),
    size,
    (p) => ({ sort: p.createdAt, id: p.id }),
  );
}

export async function countDigitalProducts(scope: SiteScope): Promise<number> {
  const row = await scope.db
    .selectFrom('digital_products')
    .where('site_id', '=', scope.siteId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findDigitalProduct(scope: SiteScope, id: string): Promise<OperatorDigitalProduct | null> {
  const row = await scope.db
    .selectFrom('digital_products')
    .select(COLUMNS)
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return toProduct(row, (await purchaseCounts(scope, [id])).get(id) ?? 0);
}

export type DigitalProductWrite = { kind: 'done'; product: OperatorDigitalProduct } | { kind: 'not_found' } | { kind: 'slug_taken' };

async function done(scope: SiteScope, id: string): Promise<DigitalProductWrite> {
  const product = await findDigitalProduct(scope, id);
  return product ? { kind: 'done', product } : { kind: 'not_found' };
}

export async function createDigitalProduct(scope: SiteScope, fields: DigitalProductFields, now: number): Promise<DigitalProductWrite> {
  if (await slugTaken(scope, 'digital_products', fields.slug, null)) return { kind: 'slug_taken' };
  const id = `dpr_${randomUUID()}`;
  await scope.db
    .insertInto('digital_products')
    .values({
      id,
      site_id: scope.siteId,
      slug: fields.slug,
      title: fields.title,
      kind: fields.kind,
      description: fields.description,
      price_cents: fields.priceCents,
      currency: fields.currency,
      published: 0,
      created_at: now,
      archived_at: null,
      updated_at: null,
    })
    .execute();
  return done(scope, id);
}

export async function updateDigitalProduct(
  scope: SiteScope,
  id: string,
  changes: Partial<DigitalProductFields>,
  now: number,
): Promise<DigitalProductWrite> {
  if (changes.slug !== undefined && (await slugTaken(scope, 'digital_products', changes.slug, id))) return { kind: 'slug_taken' };
  const result = await scope.db
    .updateTable('digital_products')
    .set({
      ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.kind !== undefined ? { kind: changes.kind } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.priceCents !== undefined ? { price_cents: changes.priceCents } : {}),
      ...(changes.currency !== undefined ? { currency: changes.currency } : {}),
      updated_at: now,
    })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { kind: 'not_found' };
  return done(scope, id);
}

/** Publishes (an archived product comes back) or archives (hidden from sale; buyers keep it). */
export async function transitionDigitalProduct(
  scope: SiteScope,
  id: string,
  to: 'publish' | 'archive',
  now: number,
): Promise<DigitalProductWrite> {
  const result = await scope.db
    .updateTable('digital_products')
    .set(to === 'publish' ? { published: 1, archived_at: null, updated_at: now } : { published: 0, archived_at: now, updated_at: now })
    .where('site_id', '=', scope.siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return { kind: 'not_found' };
  return done(scope, id);
}

export interface Purchaser {
  purchaseId: string;
  personId: string;
  name: string;
  email: string;
  purchasedAt: number;
}

export async function listPurchasers(scope: SiteScope, productId: string, request: PageRequest): Promise<Page<Purchaser>> {
  const list = `operator_purchasers:${productId}`;
  const { size, after } = pageQuery(list, request);
  const rows = await scope.db
    .selectFrom('digital_product_purchases as u')
    .innerJoin('people as p', 'p.id', 'u.person_id')
    .where('u.site_id', '=', scope.siteId)
    .where('u.product_id', '=', productId)
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb.or([eb('u.purchased_at', '<', after!.sort), eb.and([eb('u.purchased_at', '=', after!.sort), eb('u.id', '<', after!.id)])]),
      ),
    )
    .select(['u.id', 'u.person_id', 'p.name', 'p.email', 'u.purchased_at'])
    .orderBy('u.purchased_at', 'desc')
    .orderBy('u.id', 'desc')
    .limit(size + 1)
    .execute();
  return toPage(
    list,
    rows.map((r) => ({ purchaseId: r.id, personId: r.person_id, name: r.name, email: r.email, purchasedAt: Number(r.purchased_at) })),
    size,
    (p) => ({ sort: p.purchasedAt, id: p.purchaseId }),
  );
}

export async function countPurchasers(scope: SiteScope, productId: string): Promise<number> {
  return (await purchaseCounts(scope, [productId])).get(productId) ?? 0;
}
