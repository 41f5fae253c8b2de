#!/usr/bin/env node
// The installed CLI entry: runs the compiled build (npm run build) so no TypeScript loader is needed.
import('../dist/src/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('schoolgate is not built yet: run `npm run build` first.');
    process.exit(1);
  }
  throw err;
});
