import type { Readable, Writable } from 'node:stream';
import type { IKernelMemory } from '@km/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-mcp-server.js';

/** Options of {@link runStdioServer}. */
export interface StdioServerOptions extends MemoryMcpServerOptions {
  /** @default process.stdin */
  stdin?: Readable;
  /** Carries the protocol only. @default process.stdout */
  stdout?: Writable;
}

/** A running stdio server. */
export interface StdioServer {
  server: McpServer;
  /** Settles when the client closes stdin or {@link StdioServer.close} is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

const CONSOLE_TO_STDERR = ['log', 'info', 'debug'] as const;

/**
 * Serves `memory` over stdio (what `km mcp` runs): JSON-RPC on stdout and nothing else. While
 * it runs, `console.log`, `console.info` and `console.debug` write to stderr, like every log;
 * unexpected tool errors are logged there too. Ends when the client closes stdin.
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().withDataDirectory('./km-data').build();
 * const { closed } = await runStdioServer(memory, { readOnly: true });
 * await closed;
 * ```
 */
export async function runStdioServer(memory: IKernelMemory, options: StdioServerOptions = {}): Promise<StdioServer> {
  const { stdin = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  const restoreConsole = stdout === process.stdout ? consoleToStderr() : () => undefined;
  const server = createMemoryMcpServer(memory, {
    log: (message, fields) => process.stderr.write(`${new Date().toISOString()} ERROR [km] [mcp] ${message} ${JSON.stringify(fields)}\n`),
    ...serverOptions,
  });
  const transport = new StdioServerTransport(stdin, stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    // Deferred: closing the server closes the transport, whose onclose calls this again.
    closing ??= Promise.resolve().then(async () => {
      try {
        await server.close();
      } catch {
        // The transport is gone either way.
      } finally {
        restoreConsole();
        resolveClosed();
      }
    });
    return closing;
  };
  const onClose = () => {
    close().catch(() => undefined);
  };
  transport.onclose = onClose;
  await server.connect(transport);
  // The SDK's transport does not watch for the end of stdin: the client going away ends the
  // server, once the requests it already sent are answered (`printf '...' | km mcp` works).
  let ending = false;
  const inFlight = trackRequests(transport, () => {
    if (ending) onClose();
  });
  const onEnd = () => {
    ending = true;
    if (inFlight.size === 0) onClose();
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  return { server, closed, close };
}

/** The ids of requests received and not yet answered; `settled` runs after each answer is written. */
function trackRequests(transport: StdioServerTransport, settled: () => void): Set<string | number> {
  const pending = new Set<string | number>();
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    if (('result' in message || 'error' in message) && message.id !== undefined && message.id !== null && pending.delete(message.id))
      settled();
  };
  return pending;
}

/** Sends console output meant for stdout to stderr; returns the function that undoes it. */
function consoleToStderr(): () => void {
  const saved = CONSOLE_TO_STDERR.map((name) => [name, console[name]] as const);
  for (const name of CONSOLE_TO_STDERR) console[name] = (...args: unknown[]) => console.error(...args);
  return () => {
    for (const [name, fn] of saved) console[name] = fn;
  };
}
