import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A reply: bulk string (string or Buffer), integer, null, array, simple string, error, or a RESP3 map (for RESP3 clients). */
export type Reply = string | Buffer | number | null | Reply[] | { simple: string } | { error: string } | { map: Reply[] };

/** One command received: its arguments as text, and as bytes (for binary arguments such as vectors). */
export interface RecordedCommand {
  args: string[];
  raw: Buffer[];
  /** Which TCP read brought it (commands written together, as a pipeline, share one). */
  read: number;
}

/** A local RESP2 server (RESP3 maps on request) that records every command and answers it from a function. */
export interface RespRecorder {
  /** `redis://127.0.0.1:{port}`. */
  url: string;
  /** Every command so far, oldest first (handshake commands included); empty it with `commands.length = 0`. */
  commands: RecordedCommand[];
  close(): Promise<void>;
}

/**
 * Starts a recorder for request-shape tests: node-redis connects to it as to a server; each
 * command (an array of bulk strings) is recorded and answered by `answer` (given the arguments as
 * text and as bytes), or `+OK` when it returns undefined. It checks shapes only: whether the connector works is for the
 * conformance suite against a real server.
 */
export async function startRespRecorder(answer: (args: string[], raw: Buffer[]) => Reply | undefined): Promise<RespRecorder> {
  const commands: RecordedCommand[] = [];
  const sockets = new Set<Socket>();
  let reads = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      reads++;
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parseCommand(buffer);
        if (!parsed) return;
        buffer = buffer.subarray(parsed.end);
        const args = parsed.raw.map((b) => b.toString('utf8'));
        commands.push({ args, raw: parsed.raw, read: reads });
        socket.write(encode(answer(args, parsed.raw) ?? { simple: 'OK' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    commands,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One RESP array of bulk strings from the start of `data`, or undefined when it is incomplete. */
function parseCommand(data: Buffer): { raw: Buffer[]; end: number } | undefined {
  if (data.length === 0) return undefined;
  if (data[0] !== 0x2a) throw new Error(`the recorder reads RESP arrays only, got ${JSON.stringify(data.subarray(0, 20).toString())}`);
  let at = data.indexOf('\r\n');
  if (at < 0) return undefined;
  const count = Number(data.subarray(1, at).toString());
  let pos = at + 2;
  const raw: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    if (pos >= data.length) return undefined;
    if (data[pos] !== 0x24) throw new Error('the recorder reads bulk strings only');
    at = data.indexOf('\r\n', pos);
    if (at < 0) return undefined;
    const length = Number(data.subarray(pos + 1, at).toString());
    const start = at + 2;
    if (data.length < start + length + 2) return undefined;
    raw.push(Buffer.from(data.subarray(start, start + length)));
    pos = start + length + 2;
  }
  return { raw, end: pos };
}

function encode(reply: Reply): Buffer {
  if (reply === null) return Buffer.from('$-1\r\n');
  if (typeof reply === 'number') return Buffer.from(`:${reply}\r\n`);
  if (typeof reply === 'string' || Buffer.isBuffer(reply)) {
    const bytes = Buffer.isBuffer(reply) ? reply : Buffer.from(reply, 'utf8');
    return Buffer.concat([Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n')]);
  }
  if (Array.isArray(reply)) return Buffer.concat([Buffer.from(`*${reply.length}\r\n`), ...reply.map(encode)]);
  if ('simple' in reply) return Buffer.from(`+${reply.simple}\r\n`);
  if ('map' in reply) return Buffer.concat([Buffer.from(`%${reply.map.length / 2}\r\n`), ...reply.map.map(encode)]);
  return Buffer.from(`-${reply.error}\r\n`);
}
