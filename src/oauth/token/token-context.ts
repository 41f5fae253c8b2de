// What the token, revocation and introspection endpoints work with.
import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PlatformConfig } from '../../config/config.js';
import type { ClientResolver } from '../../clients/resolve-client.js';
import type { Clock } from '../../kernel/clock.js';
import type { KeyCache } from '../../keys/key-cache.js';
import type { Site } from '../../sites/site.js';
import type { Database } from '../../storage/schema.js';
import type { RawParams } from '../parameters.js';
import type { Client } from '../../clients/client.js';
import type { RevocationSignals } from '../../storage/revocation-signals.js';
import type { AccessTokenCache } from '../tokens/access-token-cache.js';
import type { PersonLookup } from '../../people/people.repository.js';
import type { StandingCheck } from '../standing.js';
import type { BackChannelLimits } from './back-channel-limits.js';
import type { TokenObserver } from '../../observability/metrics.js';
import type { GroupCommit } from '../../storage/group-commit.js';
import type { FreshRefreshTokens } from '../tokens/fresh-refresh-tokens.js';
import type { PostgresRotations } from '../tokens/postgres-rotations.js';

export interface TokenContext {
  db: Kysely<Database>;
  clock: Clock;
  keys: KeyCache;
  clients: ClientResolver;
  lifetimes: PlatformConfig['lifetimes'];
  signals: RevocationSignals;
  /** The revocation-safe cache the bearer check also reads. */
  accessTokens: AccessTokenCache;
  people: PersonLookup;
  standing: StandingCheck;
  limits: BackChannelLimits;
  observer: TokenObserver;
  /** Refresh rotations, committed together on SQLite (storage/group-commit.ts). */
  rotations: GroupCommit;
  /** Refresh rotations sent together on PostgreSQL (tokens/postgres-rotations.ts); absent on SQLite. */
  postgresRotations: PostgresRotations | undefined;
  /** Rows of refresh tokens this process issued, until their first use (tokens/fresh-refresh-tokens.ts). */
  freshRefreshTokens: FreshRefreshTokens;
  /** Keys of the refresh successors (token-format.ts's successorTokens): the current secret's first. */
  successorKeys: readonly [KeyObject, ...KeyObject[]];
}

/** RFC 6749 5.1 */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

export interface GrantRequest {
  site: Site;
  client: Client;
  params: RawParams;
}

/** A grant type module (ARCHITECTURE rule 5): the token endpoint dispatches through a map of these. */
export interface GrantType {
  grantType: string;
  handle(ctx: TokenContext, request: GrantRequest): Promise<TokenResponse>;
}
