import type { FastifyInstance, FastifyReply } from 'fastify';
import type { MemoryService } from '@km/core';
import type { ServiceConfig } from '../config.js';
import type { ServiceMetrics } from '../metrics.js';

const ROUTE = '/mcp';

/**
 * `@km/mcp` (the MCP SDK and zod: about a fifth of the service's import time), loaded on the
 * first request to `/mcp` rather than by every process that imports the service (`km ask`, a
 * worker, the tests).
 */
let mcpModule: Promise<typeof import('@km/mcp')> | undefined;
const loadMcp = (): Promise<typeof import('@km/mcp')> => (mcpModule ??= import('@km/mcp'));

/**
 * The MCP endpoint: Streamable HTTP in stateless mode at `POST /mcp` (a new MCP server and
 * transport per request), behind the Host and Origin checks and the access keys like every
 * non-public route; `GET` and
 * `DELETE` answer 405 (no server-initiated stream, no session). Off with `KM_MCP=false`;
 * `KM_MCP_READ_ONLY=true` offers only the tools that read.
 */
export function registerMcpRoutes(app: FastifyInstance, memory: MemoryService, config: ServiceConfig, metrics: ServiceMetrics): void {
  if (!config.mcp.enabled) return;
  // A text to import may be as large as an upload.
  app.post(ROUTE, { bodyLimit: config.maxUploadBytes }, async (request, reply) => {
    const { handleStreamableHttp } = await loadMcp();
    reply.hijack();
    // The headers set by the hooks (request id, CORS) are written by hand past a hijack.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    await handleStreamableHttp(memory, request.raw, reply.raw, request.body, {
      readOnly: config.mcp.readOnly,
      // Web sites only, under the guard of web imports; agents never read the service's disk through MCP.
      sync: { allowPrivateNetworks: config.web.allowPrivateNetworks },
      // The app's Host and Origin checks ran first (KM_ALLOWED_HOSTS, KM_ALLOWED_ORIGINS), as for every route.
      allowedOrigins: ['*'],
      log: (message, fields) => request.log.error(fields, message),
    });
    // A hijacked reply skips the onResponse hook: observe and log the request here.
    const status = reply.raw.statusCode;
    metrics.observeRequest(request.method, ROUTE, status, reply.elapsedTime / 1000);
    request.log.info({ method: request.method, url: request.url, status, ms: Math.round(reply.elapsedTime) }, 'request');
    return reply;
  });
  const notAllowed = async (_request: unknown, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send((await loadMcp()).METHOD_NOT_ALLOWED_BODY);
  app.get(ROUTE, notAllowed);
  app.delete(ROUTE, notAllowed);
}
