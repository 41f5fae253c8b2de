// The product lists operator operations take (a coupon's or a plan's courses and digital products): one
// input schema and one check that each is this school's, naming the bad entries by JSON pointer.
import { z } from 'zod';
import { type ProductRef, unknownProducts } from '../../school/products.repository.js';
import { type OperationContext, OperationError } from '../operation.js';
import { siteScope } from './site-scope.js';

export const productRef = z.object({ type: z.enum(['course', 'digital_product']), id: z.string() });

export const productsInput = z
  .array(z.object({ type: z.enum(['course', 'digital_product']), id: z.string().min(1).max(64) }).strict())
  .max(100);

/** Refuses a list naming a product this school does not have (another school's looks the same as none). */
export async function checkProducts(ctx: OperationContext, products: readonly ProductRef[]): Promise<void> {
  const unknown = await unknownProducts(siteScope(ctx), products);
  if (unknown.length > 0)
    throw new OperationError(
      'invalid_argument',
      'Some products are not products of this school.',
      unknown.map((i) => ({ pointer: `/products/${i}/id`, detail: 'no such product here' })),
    );
}
