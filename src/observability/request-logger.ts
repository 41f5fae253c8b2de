// Each request logs through a child of the application's logger bound to its request id, so every line it
// writes carries `reqId`. Pino makes a child by serializing the bindings at once, and Fastify asks for one at
// the start of every request: 1.8% of a UserInfo request's CPU in a pinned profile (bench/RESULTS.md,
// twenty-sixth session), for requests that nearly all log nothing (request logging is off). This factory
// gives Fastify a stand-in that makes the child when the request first logs, or is asked its level.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LogFn = FastifyBaseLogger['info'];

const LOG_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export class LazyRequestLogger implements FastifyBaseLogger {
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  /** The request's child logger, made on first use. */
  logger(): FastifyBaseLogger {
    if (this.#child === undefined) this.#child = this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): FastifyBaseLogger['level'] {
    return this.logger().level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

// On the prototype, so a request that never logs allocates no function: each calls the child's own method.
for (const method of LOG_METHODS) {
  LazyRequestLogger.prototype[method] = function (this: LazyRequestLogger, ...args: unknown[]) {
    const child = this.logger();
    (child[method] as (...params: unknown[]) => void).apply(child, args);
  } as LogFn;
}

/** Fastify's `childLoggerFactory`: the request's logger, bound to its request id when it is first used. */
export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyRequestLogger(logger, bindings, options);
