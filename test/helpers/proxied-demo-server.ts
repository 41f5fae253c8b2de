// The demo server of demo-server.ts on PostgreSQL reached through a TcpProxy, so a test can take the store
// away from a running server and give it back (issue 4, section 3, fault injection).
import { type DemoServer, type DemoServerOptions, startDemoServer } from './demo-server.js';
import { createTestDatabase } from './postgres.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export interface ProxiedDemoServer extends DemoServer {
  proxy: TcpProxy;
}

export async function startProxiedDemoServer(options: Omit<DemoServerOptions, 'database'> = {}): Promise<ProxiedDemoServer> {
  const { url: directUrl, drop } = await createTestDatabase();
  const direct = new URL(directUrl);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(directUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const cleanup = async () => {
    proxy.resume();
    await proxy.close();
    await drop();
  };
  const server = await startDemoServer('postgres', { ...options, database: { url: proxied.toString(), cleanup } });
  return { ...server, proxy };
}
