// A throwaway certificate authority and a loopback server certificate for HTTPS test servers
// (CIMD documents). Node trusts the CA through NODE_EXTRA_CA_CERTS, set before workers start.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
}

export function createTestTls(): TestTls {
  const dir = mkdtempSync(join(tmpdir(), 'schoolgate-tls-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=schoolgate test CA',
  ]);
  run([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  ]);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n');
  run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  return loadTestTls(dir);
}

export function loadTestTls(dir: string): TestTls {
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  };
}

/** The TLS material the global setup made for this run. */
export function testTls(): TestTls {
  const dir = process.env.SCHOOLGATE_TEST_TLS_DIR;
  if (!dir || !existsSync(dir)) throw new Error('SCHOOLGATE_TEST_TLS_DIR is not set: run the tests through vitest (global setup)');
  return loadTestTls(dir);
}
