// Checkpoints of a served SQLite database, off the event loop (issue 12). In WAL mode SQLite copies the
// log back into the database file every 1,000 pages, inside whichever commit crosses that mark. Token
// tables are keyed by random hashes, so every rotation dirties pages all over their indexes and the log
// fills quickly: those checkpoints cost the refresh grant about a fifth of its rate. A worker thread with
// its own connection runs PASSIVE checkpoints instead (they never block readers or the writer), and the
// serving connection stops checkpointing itself; if the worker fails, the connection takes the work back.
// Durability is unchanged: a commit is in the log before it is answered, checkpointed or not.
//
// A PASSIVE checkpoint copies the frames that were in the log when it started; under a steady stream of
// commits more arrive meanwhile, so the log is never found fully copied when the next writer begins, never
// starts over, and grows without bound (a gigabyte in 16 s of refresh grants here; every new frame then
// also costs the file system a zeroed page). So once the log holds RESTART_LOG_FRAMES, the serving
// connection's grouped writes pause (writesPaused(): the rotations wait, reads go on) while the worker
// runs one RESTART checkpoint, after which the next commit writes the log from its start again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** Frames (pages) in the log at which it is made to start over: 8,192 frames are 32 MiB with 4 KiB pages. */
export const RESTART_LOG_FRAMES = 8192;
/** The longest grouped writes wait for a restart; past it they go on (the log restarts at a later try). */
const RESTART_WAIT_MS = 1000;
/**
 * Before a restart, passive copies run again (at most this many) until one takes under CAUGHT_UP_MS, so the
 * restart itself has little left to copy: under sustained rotations its pause went from 10-58 ms to 2-7 ms,
 * and the refresh grant's p99 from 31-42 ms to about 20 ms.
 */
const CATCH_UP_ROUNDS = 6;
const CAUGHT_UP_MS = 1;
/** SQLite's own default, restored on the serving connection when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

// The worker is a script of its own (eval), so that it runs the same under the build and under tsx.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const checkpoint = (mode) => db.pragma('wal_checkpoint(' + mode + ')')[0];
const timer = setInterval(() => {
  let result = checkpoint('PASSIVE');
  // Writes go on while a passive checkpoint copies the log, and the restart (which stops them) must copy
  // whatever arrived meanwhile: copy again while there is a restart to come and a copy still takes a while.
  let rounds = 0;
  while (rounds < workerData.catchUpRounds && result.log >= workerData.restartLogFrames) {
    rounds += 1;
    const started = performance.now();
    result = checkpoint('PASSIVE');
    if (performance.now() - started < workerData.caughtUpMs) break;
  }
  parentPort.postMessage({ mode: 'PASSIVE', rounds, ...result });
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'restart') return parentPort.postMessage({ mode: 'RESTART', ...checkpoint('RESTART') });
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
  /** Checkpoints the worker has run so far, and how many of them were restarts of the log. */
  readonly runs: number;
  readonly restarts: number;
  /** Passive copies run again right before a restart, so that it has little left to copy (counted apart from runs). */
  readonly catchUps: number;
  /** The latest checkpoint's figures, for tests and metrics. */
  readonly last: CheckpointResult | undefined;
  /** While the worker restarts the log: settles when grouped writes may go on. */
  writesPaused(): Promise<void> | undefined;
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Told when the worker stops and the serving connection checkpoints inside its commits again. */
  onFault?: (error: Error) => void;
  /** Log frames at which the log is restarted (tests use a small number). */
  restartLogFrames?: number;
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
  { onFault = () => {}, restartLogFrames = RESTART_LOG_FRAMES }: CheckpointerOptions = {},
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      driver,
      intervalMs: CHECKPOINT_INTERVAL_MS,
      restartLogFrames,
      catchUpRounds: CATCH_UP_ROUNDS,
      caughtUpMs: CAUGHT_UP_MS,
    },
  });
  // The worker must not keep a finished process alive (the CLI, tests).
  worker.unref();
  let stopping = false;
  const state: { runs: number; restarts: number; catchUps: number; last: CheckpointResult | undefined } = {
    runs: 0,
    restarts: 0,
    catchUps: 0,
    last: undefined,
  };
  let pause: { done: Promise<void>; end: () => void } | undefined;
  const endPause = () => {
    pause?.end();
    pause = undefined;
  };
  const pauseForRestart = () => {
    let resolve = () => {};
    const done = new Promise<void>((settle) => {
      resolve = settle;
    });
    // Past the timeout the writes go on; a restart still under way then finishes on its own, waiting for the
    // writer's lock between commits like any other checkpoint that needs it.
    const timer = setTimeout(endPause, RESTART_WAIT_MS);
    pause = {
      done,
      end: () => {
        clearTimeout(timer);
        resolve();
      },
    };
    worker.postMessage('restart');
  };
  setAutocheckpoint(0);
  const takeBack = (error: unknown) => {
    endPause();
    if (stopping) return;
    stopping = true;
    setAutocheckpoint(AUTOCHECKPOINT_PAGES);
    onFault(workerFault(error));
  };
  worker.on('message', ({ mode, rounds = 0, ...result }: CheckpointResult & { mode: 'PASSIVE' | 'RESTART'; rounds?: number }) => {
    state.runs += 1;
    state.catchUps += rounds;
    state.last = result;
    if (mode === 'RESTART') {
      state.restarts += 1;
      endPause();
    } else if (result.log >= restartLogFrames && !pause && !stopping) {
      pauseForRestart();
    }
  });
  worker.on('error', takeBack);
  worker.on('exit', (code) => takeBack(new Error(`the checkpoint worker exited (${code})`)));
  return {
    get runs() {
      return state.runs;
    },
    get restarts() {
      return state.restarts;
    },
    get catchUps() {
      return state.catchUps;
    },
    get last() {
      return state.last;
    },
    writesPaused: () => pause?.done,
    stop: () =>
      new Promise<void>((resolve) => {
        endPause();
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
