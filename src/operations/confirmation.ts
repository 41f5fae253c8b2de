// The two-step confirmation of destructive or outward-facing MCP tool calls (CONTRACT 6): the first call
// answers a preview and a confirmationToken bound to exactly those arguments, that tool, that person, app
// and site, for 5 minutes; the same call with the token acts, once. The token is an HMAC over what it
// binds (nothing to store until it is used); its use is recorded in the write's own transaction, so a
// token acts at most once on any node, and a write that fails leaves it usable.
import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual, hashToken } from '../kernel/hashing.js';
import { canonicalJson } from './idempotency.js';
import { type OperationContext, OperationError } from './operation.js';

export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

export interface ConfirmationBinding {
  operation: string;
  /** The call's arguments without the token itself. */
  args: Record<string, unknown>;
}

function bound(ctx: OperationContext, binding: ConfirmationBinding): string {
  return canonicalJson([ctx.site.id, ctx.personId, ctx.clientId, binding.operation, binding.args]);
}

export class ConfirmationTokens {
  /**
   * `keys`: the current secret's, which issues, then the previous secret's while the secret changes
   * (keys/secret-keys.ts), which still verifies what it issued.
   */
  constructor(private readonly keys: readonly [Buffer, ...Buffer[]]) {}

  private mac(payload: string, key: Buffer = this.keys[0]): string {
    return createHmac('sha256', key).update(payload).digest('base64url');
  }

  /** A token for this call, and when it stops working. */
  issue(ctx: OperationContext, binding: ConfirmationBinding): { token: string; expiresAt: number } {
    const expiresAt = ctx.clock.now() + CONFIRMATION_TTL_MS;
    const head = `${expiresAt.toString(36)}.${randomBytes(12).toString('base64url')}`;
    return { token: `${head}.${this.mac(`${head}\n${bound(ctx, binding)}`)}`, expiresAt };
  }

  /**
   * Checks a token against the call it comes with; throws an OperationError saying what to do when it
   * does not fit. Answers the precondition that records its single use inside the write's transaction.
   */
  verify(ctx: OperationContext, binding: ConfirmationBinding, token: string): (inner: OperationContext) => Promise<void> {
    const parts = token.split('.');
    const expiresAt = Number.parseInt(parts[0] ?? '', 36);
    const again = `Call ${binding.operation} again without confirmationToken to get a new preview and token.`;
    if (parts.length !== 3 || !Number.isSafeInteger(expiresAt))
      throw new OperationError('invalid_argument', `The confirmationToken is not valid. ${again}`);
    const payload = `${parts[0]}.${parts[1]}\n${bound(ctx, binding)}`;
    if (!this.keys.some((key) => constantTimeEqual(this.mac(payload, key), parts[2] ?? '')))
      throw new OperationError(
        'invalid_argument',
        `The confirmationToken was issued for another call (other arguments, tool or caller). ${again}`,
      );
    if (expiresAt <= ctx.clock.now()) throw new OperationError('invalid_argument', `The confirmationToken has expired. ${again}`);
    return async (inner) => {
      const used = await inner.db
        .insertInto('confirmation_uses')
        .values({ token_hash: hashToken(token), expires_at: expiresAt })
        .onConflict((oc) => oc.column('token_hash').doNothing())
        .executeTakeFirst();
      if (Number(used.numInsertedOrUpdatedRows ?? 0n) === 0)
        throw new OperationError('conflict', `This confirmationToken has already been used. ${again}`);
    };
  }
}
