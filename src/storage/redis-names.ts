// The names a deployment uses in a Redis server. Several deployments may share one server (staging beside
// production): keys could be kept apart by database number, but pub/sub channels are server-wide whatever the
// database, so one deployment's revocation signals would reach the other's nodes and their per-address rate
// budgets would be spent together. REDIS_PREFIX (one value per deployment, the same on all of its nodes)
// puts the deployment's keys and channel under a name of its own; unset, the names are those of a
// deployment that never set it, so turning it on is the only change an upgrade needs.

export interface RedisNames {
  /** The key of a rate-limit counter. */
  counter(key: string): string;
  /** The pub/sub channel of the revocation signals. */
  readonly revocationChannel: string;
}

/** What REDIS_PREFIX may hold: a short name that reads plainly in `redis-cli` (`<prefix>:sg:rl:...`). */
export const REDIS_PREFIX_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function redisNames(prefix = ''): RedisNames {
  const scope = prefix === '' ? '' : `${prefix}:`;
  return {
    counter: (key) => `${scope}sg:rl:${key}`,
    revocationChannel: `${scope}schoolgate:revocations`,
  };
}
