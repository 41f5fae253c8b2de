// What a school sells, as other records name it (a coupon's or a plan's products): a course or a digital
// product of the site, by type and id. One check of such lists for every family that takes them.
import type { ProductType } from '../storage/school-schema.js';
import type { SiteScope } from './scope.js';

export interface ProductRef {
  type: ProductType;
  id: string;
}

/** The positions in a list of the products this site does not have (another site's, or nothing). */
export async function unknownProducts(scope: SiteScope, products: readonly ProductRef[]): Promise<number[]> {
  const wanted = (type: ProductType) => products.filter((p) => p.type === type).map((p) => p.id);
  const [courses, digital] = await Promise.all([
    wanted('course').length === 0
      ? []
      : scope.db.selectFrom('courses').select('id').where('site_id', '=', scope.siteId).where('id', 'in', wanted('course')).execute(),
    wanted('digital_product').length === 0
      ? []
      : scope.db
          .selectFrom('digital_products')
          .select('id')
          .where('site_id', '=', scope.siteId)
          .where('id', 'in', wanted('digital_product'))
          .execute(),
  ]);
  const known = new Set([...courses.map((c) => `course:${c.id}`), ...digital.map((d) => `digital_product:${d.id}`)]);
  return products.flatMap((p, i) => (known.has(`${p.type}:${p.id}`) ? [] : [i]));
}
