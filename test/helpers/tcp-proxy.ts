// A TCP proxy in front of a database for fault injection (issue 4, section 3: "the store made unreachable
// under a running server"). `pause()` cuts every open connection and refuses new ones (or, with 'stall',
// accepts them and forwards nothing, like a store that hangs); `resume()` forwards again.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type PauseMode = 'refuse' | 'stall';

export interface TcpProxy {
  port: number;
  pause(mode?: PauseMode): Promise<void>;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let paused: PauseMode | null = null;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // A cut connection is the point of the exercise, not an error of the proxy.
    socket.on('error', () => {});
  };

  const server: Server = createServer((client) => {
    track(client);
    if (paused === 'refuse') {
      client.destroy();
      return;
    }
    if (paused === 'stall') return;
    const upstream = createConnection(target);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');

  const cutAll = () => {
    for (const socket of open) socket.destroy();
  };

  return {
    port: address.port,
    async pause(mode: PauseMode = 'refuse') {
      paused = mode;
      cutAll();
      // Let the database clients see their sockets close before the test goes on.
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
    resume() {
      paused = null;
      // Connections accepted while stalled never forward: drop them so their clients reconnect.
      cutAll();
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
