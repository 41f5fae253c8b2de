// operations/confirmation.ts with keys/secret-keys.ts: while SCHOOLGATE_SECRET changes, a confirmationToken
// issued under the previous secret still confirms its call; once the previous secret is gone it does not,
// and new tokens are always made with the current secret.
import { describe, expect, it } from 'vitest';
import { secretKeys } from '../../src/keys/secret-keys.js';
import { ConfirmationTokens } from '../../src/operations/confirmation.js';
import type { OperationContext } from '../../src/operations/operation.js';
import { TestClock } from '../helpers/test-clock.js';

const OLD = { secret: 'old-secret-0123456789abcdefghijklmnopqrstuvwxyzABCD' };
const NEW = { secret: 'new-secret-0123456789abcdefghijklmnopqrstuvwxyzABCD' };
const CHANGING = { ...NEW, previousSecret: OLD.secret };

// verify() reads only these of the context; the returned precondition (not run here) needs the database.
const ctx = { site: { id: 'site_1' }, personId: 'per_1', clientId: 'client_1', clock: new TestClock() } as unknown as OperationContext;
const binding = { operation: 'unpublish_course', args: { courseId: 'crs_1' } };

const confirms = (tokens: ConfirmationTokens, token: string) => {
  try {
    tokens.verify(ctx, binding, token);
    return true;
  } catch {
    return false;
  }
};

describe('confirmation tokens across a change of SCHOOLGATE_SECRET', () => {
  it('a token issued under the previous secret confirms while that secret is set as SCHOOLGATE_PREVIOUS_SECRET, and not after', () => {
    const { token } = new ConfirmationTokens(secretKeys(OLD, 'mcp-confirmation')).issue(ctx, binding);
    expect(confirms(new ConfirmationTokens(secretKeys(CHANGING, 'mcp-confirmation')), token)).toBe(true);
    expect(confirms(new ConfirmationTokens(secretKeys(NEW, 'mcp-confirmation')), token)).toBe(false);
  });

  it('new tokens are issued with the current secret: they confirm once the previous one is gone', () => {
    const { token } = new ConfirmationTokens(secretKeys(CHANGING, 'mcp-confirmation')).issue(ctx, binding);
    expect(confirms(new ConfirmationTokens(secretKeys(NEW, 'mcp-confirmation')), token)).toBe(true);
    expect(confirms(new ConfirmationTokens(secretKeys(OLD, 'mcp-confirmation')), token)).toBe(false);
  });

  it('a token for other arguments is refused under either secret', () => {
    const { token } = new ConfirmationTokens(secretKeys(OLD, 'mcp-confirmation')).issue(ctx, { ...binding, args: { courseId: 'crs_2' } });
    expect(confirms(new ConfirmationTokens(secretKeys(CHANGING, 'mcp-confirmation')), token)).toBe(false);
  });
});
