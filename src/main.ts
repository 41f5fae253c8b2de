// The `schoolgate` executable (CONTRACT 1): hands argv to the dispatcher in cli/run.ts and exits with its code.
import { runCli } from './cli/run.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }, process.env);
process.exitCode = code;
// Everything was closed; a stray handle (a pool, a timer) must not keep a finished command alive.
setTimeout(() => process.exit(code), 1000).unref();
