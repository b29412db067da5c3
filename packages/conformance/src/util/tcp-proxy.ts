import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy in front of a backend, to cut connections on purpose. */
export interface TcpProxy {
  /** The local port clients connect to. */
  port: number;
  /** Connections cut so far. */
  cuts: number;
  /** Destroys every open connection (both sides), as a network failure or broker restart would. */
  cut(): number;
  /** Stops accepting connections and cuts the open ones. */
  close(): Promise<void>;
}

/**
 * Starts a TCP proxy on 127.0.0.1 to `host:port`, for tests of reconnection: point the
 * connector at `proxy.port`, then `proxy.cut()`.
 *
 * ```ts
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5672 });
 * const queue = new RabbitMqQueue({ url: `amqp://guest:guest@127.0.0.1:${proxy.port}` });
 * proxy.cut(); // the queue must reconnect by itself
 * ```
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    cuts: 0,
    cut() {
      const open = [...pairs];
      for (const [client, upstream] of open) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      proxy.cuts += open.length;
      return open.length;
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
