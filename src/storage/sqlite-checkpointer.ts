// Checkpoints of a served SQLite database, off the event loop (issue 12). In WAL mode SQLite copies the
// log back into the database file every 1,000 pages, inside whichever commit crosses that mark. Token
// tables are keyed by random hashes, so every rotation dirties pages all over their indexes and the log
// fills quickly: those checkpoints cost the refresh grant about a fifth of its rate. A worker thread with
// its own connection runs PASSIVE checkpoints instead (they never block readers or the writer), and the
// serving connection stops checkpointing itself; if the worker fails, the connection takes the work back.
// Durability is unchanged: a commit is in the log before it is answered, checkpointed or not.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** SQLite's own default, restored on the serving connection when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

// The worker is a script of its own (eval), so that it runs the same under the build and under tsx.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage(result);
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointResult {
  /** 1 when a checkpoint could not start (another one ran); 0 otherwise. */
  busy: number;
  /** Frames in the log, and how many of them are in the database file now. */
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** Checkpoints the worker has run so far. */
  readonly runs: number;
  /** The latest checkpoint's figures, for tests and metrics. */
  readonly last: CheckpointResult | undefined;
  stop(): Promise<void>;
}

/**
 * An error thrown in the worker reaches this thread as a structured clone: a SqliteError arrives as a bare
 * object holding only its code, so it is given a message here.
 */
function workerFault(error: unknown): Error {
  if (error instanceof Error) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
  return new Error(`the checkpoint worker failed (${code})`);
}

/** Starts checkpointing `path` in a worker; `setAutocheckpoint` switches the serving connection's own. */
export function startCheckpointer(
  path: string,
  setAutocheckpoint: (pages: number) => void,
  onFault: (error: Error) => void = () => {},
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs: CHECKPOINT_INTERVAL_MS } });
  // The worker must not keep a finished process alive (the CLI, tests).
  worker.unref();
  let stopping = false;
  const state: { runs: number; last: CheckpointResult | undefined } = { runs: 0, last: undefined };
  setAutocheckpoint(0);
  const takeBack = (error: unknown) => {
    if (stopping) return;
    stopping = true;
    setAutocheckpoint(AUTOCHECKPOINT_PAGES);
    onFault(workerFault(error));
  };
  worker.on('message', (result: CheckpointResult) => {
    state.runs += 1;
    state.last = result;
  });
  worker.on('error', takeBack);
  worker.on('exit', (code) => takeBack(new Error(`the checkpoint worker exited (${code})`)));
  return {
    get runs() {
      return state.runs;
    },
    get last() {
      return state.last;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (stopping) return resolve();
        stopping = true;
        // Held again until it has exited: an unreferenced worker would let the process end with this
        // promise pending (an unfinished top-level await).
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        // A worker stuck in a long checkpoint is ended rather than waited for (the log is intact either way).
        setTimeout(() => void worker.terminate(), 2000).unref();
      }),
  };
}
