import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IKernelMemory } from '@km/core';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-mcp-server.js';

/** Options of {@link handleStreamableHttp}. */
export interface StreamableHttpOptions extends MemoryMcpServerOptions {
  /**
   * Answer with one JSON body instead of a server-sent event stream (both are Streamable HTTP;
   * every client of the SDK reads either). @default true
   */
  jsonResponse?: boolean;
  /**
   * Origins a browser may call from (`Origin` header, e.g. `https://app.example.com`), or `'*'`.
   * Requests without an `Origin` (every non-browser client) are always served. Against DNS
   * rebinding, as the MCP specification asks. @default loopback origins only (localhost, 127.0.0.1, [::1])
   */
  allowedOrigins?: readonly string[];
}

/**
 * Answers one MCP request (a `POST` of JSON-RPC) over Streamable HTTP in stateless mode, the
 * SDK's documented pattern: a new server and transport for this request, closed when the
 * response closes. `body` is the request body already parsed as JSON (frameworks such as
 * Fastify and Express read it first). Put access checks in front of it: it does none.
 *
 * ```ts
 * http.createServer(async (req, res) => {
 *   if (req.method !== 'POST') return methodNotAllowed(res);
 *   const body = JSON.parse(await text(req));
 *   await handleStreamableHttp(memory, req, res, body, { readOnly: true });
 * });
 * ```
 */
export async function handleStreamableHttp(
  memory: IKernelMemory,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: StreamableHttpOptions = {},
): Promise<void> {
  const { jsonResponse = true, allowedOrigins, ...serverOptions } = options;
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, allowedOrigins)) {
    writeJsonRpcError(res, 403, -32000, `requests from origin ${origin} are not allowed`);
    return;
  }
  const server = createMemoryMcpServer(memory, serverOptions);
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: jsonResponse });
  res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (error) {
    serverOptions.log?.('MCP request failed', { err: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    if (!res.headersSent) writeJsonRpcError(res, 500, -32603, 'Internal server error');
    else if (!res.writableEnded) res.end();
  }
}

/**
 * The answer of a stateless MCP endpoint to `GET` (no server-initiated stream) and `DELETE`
 * (no session to end): 405 with a JSON-RPC error, as the SDK's stateless examples give.
 */
export function methodNotAllowed(res: ServerResponse): void {
  res.setHeader('allow', 'POST');
  writeJsonRpcError(res, 405, -32000, 'Method not allowed.');
}

/** The JSON-RPC error body of {@link methodNotAllowed}, for frameworks that write their own responses. */
export const METHOD_NOT_ALLOWED_BODY = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null } as const;

function writeJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when a browser request from `origin` may be served. */
function originAllowed(origin: string, allowed: readonly string[] | undefined): boolean {
  if (allowed) return allowed.includes('*') || allowed.includes(origin);
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
