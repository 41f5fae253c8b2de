// The tenant seam of every operator operation: the token's site, and nothing of any other site.
import type { SiteScope } from '../../school/scope.js';
import type { OperationContext } from '../operation.js';

export function siteScope(ctx: OperationContext): SiteScope {
  return { db: ctx.db, siteId: ctx.site.id };
}
