// The one typed configuration: environment (CONTRACT 2) plus the platform config file.
// Validated once at start; every bad value is reported by name, never a stack trace.
import type { S3Settings } from '../assets/s3-asset-store.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { REDIS_PREFIX_PATTERN } from '../storage/redis-names.js';

/** The longest `lifetimes.refresh_grace` may be: the janitor keeps expired access tokens this long (a retry's answer reads them). */
export const REFRESH_GRACE_MAX_SECONDS = 300;

const vendorSchema = z.object({
  client_name: z.string().min(1),
  client_id: z
    .string()
    .min(1)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  token_endpoint_auth_method: z.literal('none').default('none'),
  redirect_uris: z.array(z.url()).min(1),
  /** Loopback redirect URIs accept any port (RFC 8252 7.3). */
  scopes: z.array(z.string()).optional(),
});
export type VendorIntegration = z.infer<typeof vendorSchema>;

const platformSchema = z
  .object({
    vendors: z.array(vendorSchema).default([]),
    cimd: z
      .object({
        /** Hosts whose Client ID Metadata Documents are resolved (SPEC 4.2). */
        allowlist: z.array(z.string().min(1)).default([]),
        /** Resolve documents from any public host. */
        open_registration: z.boolean().default(false),
        /** Hosts whose clients have been reviewed and may request write scopes. */
        reviewed_hosts: z.array(z.string()).default([]),
        fetch_timeout_ms: z.number().int().positive().max(30000).default(5000),
        max_bytes: z.number().int().positive().max(65536).default(5120),
      })
      .prefault({}),
    mcp: z
      .object({
        /**
         * Origins of web pages allowed to call /mcp from a browser. Unset: any https origin and http on
         * loopback (http/browser-origins.ts says why that is safe); a list narrows it to those origins.
         */
        allowed_origins: z.array(z.string()).optional(),
      })
      .prefault({}),
    lifetimes: z
      .object({
        authorization_code: z.number().int().positive().default(60),
        access_token: z.number().int().positive().default(3600),
        refresh_token: z
          .number()
          .int()
          .positive()
          .default(30 * 24 * 3600),
        id_token: z.number().int().positive().default(600),
        session: z
          .number()
          .int()
          .positive()
          .default(12 * 3600),
        /** Seconds in which a just-rotated refresh token gets the same answer again; 0 turns it off. */
        refresh_grace: z.number().int().min(0).max(REFRESH_GRACE_MAX_SECONDS).default(10),
      })
      .prefault({}),
    sign_in: z
      .object({
        /** Wrong passwords for one account at one site before a temporary lockout. */
        max_failures: z.number().int().positive().default(5),
        lockout_seconds: z.number().int().positive().default(300),
      })
      .prefault({}),
    janitor: z
      .object({
        /** Seconds between the purges `serve` runs; 0 turns them off (run `schoolgate janitor --once` from cron). */
        interval_seconds: z.number().int().min(0).default(300),
        /** Rows per DELETE. */
        batch_size: z.number().int().min(10).max(10_000).default(200),
        /** Shortest pause between batches, milliseconds. */
        pause_ms: z.number().int().min(0).max(1000).default(2),
        /** Share of time a purge may hold the database; it pauses after each batch to keep to it. */
        share: z.number().gt(0).max(1).default(0.25),
        /** Days of the apps' usage log kept (members' access log on /account/apps, counts on /admin/connections). */
        access_log_retention_days: z.number().int().min(1).max(3650).default(90),
        /**
         * Days the audit log keeps its routine token events (token.issued, token.refreshed: one per code
         * exchange and per rotation, the bulk of the log); every other event is kept for good.
         */
        token_event_retention_days: z.number().int().min(1).max(3650).default(90),
      })
      .prefault({}),
    storage: z
      .object({
        /** The largest upload the operator API takes (POST /uploads), bytes. */
        max_upload_bytes: z
          .number()
          .int()
          .positive()
          .default(25 * 1024 * 1024),
      })
      .prefault({}),
    scheduler: z
      .object({
        /** Seconds between looks for posts that became published, to tell members; 0 turns it off. */
        interval_seconds: z.number().int().min(0).default(15),
      })
      .prefault({}),
    limits: z
      .object({
        body_bytes: z
          .number()
          .int()
          .positive()
          .default(64 * 1024),
        /**
         * Requests per minute per client address at the registration endpoint, and back-channel requests
         * refused before a client is known (malformed, unsupported grant type).
         */
        oauth_rate_per_minute: z.number().int().positive().default(600),
        /**
         * Token, revocation and introspection calls per minute by client kind: a confidential client per
         * site (from any address), a public client per address.
         */
        client_rate_per_minute: z
          .object({
            confidential: z.number().int().positive().default(12_000),
            public: z.number().int().positive().default(600),
          })
          .prefault({}),
        /** Failed client authentications per minute per address at the back channel; then 429 for the rest of the minute. */
        failed_client_auth_per_minute: z.number().int().positive().default(30),
        /** Operator API calls (REST) per minute per operator client per site (CONTRACT 6 throttling). */
        operator_rate_per_minute: z.number().int().positive().default(6000),
        /** Sign-in form submissions per minute per client address (the per-account lockout is separate). */
        sign_in_rate_per_minute: z.number().int().positive().default(30),
      })
      .prefault({}),
  })
  .strict();
export type PlatformConfig = z.infer<typeof platformSchema>;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/schoolgate.db')
    .refine((v) => v.startsWith('sqlite:') || /^postgres(ql)?:\/\//.test(v), 'must be sqlite:<path> or postgres://...'),
  REDIS_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^rediss?:\/\//.test(v), 'must be redis://... or rediss://...'),
  /** Keeps this deployment's keys and channel apart from another's on a shared Redis (storage/redis-names.ts). */
  REDIS_PREFIX: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === '' || REDIS_PREFIX_PATTERN.test(v),
      'must be 1-64 letters, digits, _ . or -, starting with a letter or digit',
    ),
  SCHOOLGATE_CONFIG: z.string().optional(),
  SCHOOLGATE_SECRET: z.string().optional(),
  SCHOOLGATE_PREVIOUS_SECRET: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
  SCHOOLGATE_CIMD_ALLOW_LOOPBACK: z.enum(['0', '1', '']).optional(),
  /** On SIGTERM, how long in-flight requests may take to finish before their connections are closed. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
  /** Serves GET /metrics on the main listener to scrapers that send it as a bearer token. */
  METRICS_TOKEN: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || v.length >= 32, 'must be at least 32 characters'),
  /** Serves GET /metrics, without a token, on a listener of its own at this port (METRICS_HOST, default HOST). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).optional(),
  /** Where uploaded assets are kept on local disk; <data folder>/assets when unset. */
  ASSETS_DIR: z.string().optional(),
  /** Keep assets in this S3-compatible bucket instead of on local disk. */
  S3_BUCKET: z.string().optional(),
  S3_PREFIX: z.string().optional(),
  S3_REGION: z.string().optional(),
  /** For S3-compatible services (MinIO, R2, …). */
  S3_ENDPOINT: z.url().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['0', '1']).optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  /** Prefixes this deployment's names in Redis; '' when unset. */
  redisPrefix: string;
  /** Master key material (at least 32 bytes of entropy) that encrypts what is kept reversibly. */
  secret: string;
  /**
   * The secret before the current one, while the signing keys move to the current one
   * (`schoolgate secret reseal`): what it sealed still opens; nothing new is sealed with it.
   */
  previousSecret: string | undefined;
  trustProxy: string[] | false;
  demo: boolean;
  cimdAllowLoopback: boolean;
  /** Milliseconds in-flight requests get on shutdown. */
  shutdownGraceMs: number;
  metricsToken: string | undefined;
  /** A listener of its own for /metrics, when configured. */
  metricsListener: { host: string; port: number } | undefined;
  /** The folder uploaded assets are stored in (operator API storage) when no bucket is configured. */
  assetsDir: string;
  /** An S3-compatible bucket for uploaded assets, when S3_BUCKET is set. */
  s3: S3Settings | undefined;
  platform: PlatformConfig;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function describeIssues(prefix: string, error: z.ZodError): string {
  return error.issues.map((i) => `  ${prefix}${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
}

/** Parses a platform config object (the file's JSON) with defaults. */
export function parsePlatformConfig(input: unknown, source = 'platform config'): PlatformConfig {
  const parsed = platformSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(`Invalid ${source}:\n${describeIssues('', parsed.error)}`);
  return parsed.data;
}

/** The Demo Vendor integration of CONTRACT 3, added to the platform config in demo mode. */
export const DEMO_VENDOR: VendorIntegration = {
  client_name: 'Demo Vendor',
  client_id: 'demo-vendor',
  token_endpoint_auth_method: 'none',
  redirect_uris: ['http://127.0.0.1/callback'],
};

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  demo?: boolean;
}

/** Reads and validates the whole configuration; throws ConfigError with every problem listed. */
export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  const demo = options.demo ?? false;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid environment:\n${describeIssues('', parsed.error)}`);
  const e = parsed.data;

  let platformInput: unknown = {};
  if (e.SCHOOLGATE_CONFIG) {
    const path = resolve(e.SCHOOLGATE_CONFIG);
    if (!existsSync(path)) throw new ConfigError(`SCHOOLGATE_CONFIG: no file at ${path}`);
    try {
      platformInput = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ConfigError(`SCHOOLGATE_CONFIG: ${path} is not valid JSON (${(err as Error).message})`);
    }
  }
  const platform = parsePlatformConfig(platformInput, `platform config${e.SCHOOLGATE_CONFIG ? ` ${e.SCHOOLGATE_CONFIG}` : ''}`);
  if (demo) {
    if (!platform.vendors.some((v) => v.client_id === DEMO_VENDOR.client_id)) platform.vendors.push(DEMO_VENDOR);
    if (!platform.cimd.allowlist.includes('localhost')) platform.cimd.allowlist.push('localhost');
  }

  const secret = resolveSecret(e.SCHOOLGATE_SECRET, e.DATABASE_URL, demo);
  const previousSecret = e.SCHOOLGATE_PREVIOUS_SECRET ? e.SCHOOLGATE_PREVIOUS_SECRET : undefined;
  if (previousSecret !== undefined && Buffer.byteLength(previousSecret) < 32)
    throw new ConfigError('SCHOOLGATE_PREVIOUS_SECRET: must be at least 32 characters, like the secret it was');
  if (previousSecret === secret) throw new ConfigError('SCHOOLGATE_PREVIOUS_SECRET: must differ from SCHOOLGATE_SECRET');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL ? e.REDIS_URL : undefined,
    redisPrefix: e.REDIS_PREFIX ?? '',
    secret,
    previousSecret,
    trustProxy: e.TRUST_PROXY
      ? e.TRUST_PROXY.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : false,
    demo,
    cimdAllowLoopback: demo || e.SCHOOLGATE_CIMD_ALLOW_LOOPBACK === '1',
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    metricsToken: e.METRICS_TOKEN ? e.METRICS_TOKEN : undefined,
    metricsListener: e.METRICS_PORT === undefined ? undefined : { host: e.METRICS_HOST ?? e.HOST, port: e.METRICS_PORT },
    assetsDir: e.ASSETS_DIR ? resolve(e.ASSETS_DIR) : resolve(dataDirOf(e.DATABASE_URL), 'assets'),
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          prefix: e.S3_PREFIX ?? '',
          region: e.S3_REGION ?? 'us-east-1',
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === '1',
          credentials:
            e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
              ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
              : undefined,
        }
      : undefined,
    platform,
  };
}

/** The data folder: beside the SQLite file, or ./data with PostgreSQL. */
function dataDirOf(databaseUrl: string): string {
  return databaseUrl.startsWith('sqlite:') ? dirname(resolve(databaseUrl.slice('sqlite:'.length))) : resolve('data');
}

/**
 * SCHOOLGATE_SECRET is required outside demo mode. In demo mode one is generated once into the data
 * folder beside the SQLite file (or ./data), so restarts can still decrypt the signing keys.
 */
function resolveSecret(value: string | undefined, databaseUrl: string, demo: boolean): string {
  if (value !== undefined && value !== '') {
    if (Buffer.byteLength(value) < 32)
      throw new ConfigError('SCHOOLGATE_SECRET: must be at least 32 characters (use `openssl rand -base64 48`)');
    return value;
  }
  if (!demo) throw new ConfigError('SCHOOLGATE_SECRET: required (at least 32 characters); only `serve --demo` generates one');
  const dataDir = dataDirOf(databaseUrl);
  const file = resolve(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(48).toString('base64url');
  writeFileSync(file, `${generated}\n`, { mode: 0o600 });
  return generated;
}
