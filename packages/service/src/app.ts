import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import type { MemoryService } from '@km/core';
import type { ServiceConfig } from './config.js';
import { AccessKeys, missingKeyMessage, wrongKeyMessage } from './http/access-keys.js';
import { applyConnectionLimits, serverTimeouts, suspendIdleTimeout } from './http/connection-limits.js';
import { clientClosed, foundClosed } from './http/client-closed.js';
import { registerHostOriginChecks } from './http/host-origin-checks.js';
import { problem, toProblem } from './http/problem-details.js';
import { registerTracing } from './http/tracing.js';
import { uploadSpoolDirectory } from './http/upload-spool.js';
import type { ServiceMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { registerConsoleRoutes } from './routes/console.js';
import { registerDocumentListRoutes } from './routes/document-list.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerIndexRoutes } from './routes/indexes.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerRedriveRoute } from './routes/redrive.js';
import { registerRetrievalRoutes } from './routes/retrieval.js';
import { registerSyncRoutes } from './routes/sync.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerUploadRoute } from './routes/upload.js';
import { SERVICE_VERSION } from './version.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an access key. */
    public?: boolean;
  }
}

/** What {@link createApp} needs. */
export interface AppOptions {
  memory: MemoryService;
  config: ServiceConfig;
  logger: PinoLogger;
  metrics: ServiceMetrics;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The HTTP API in front of a memory: Kernel Memory's routes, status codes and field names,
 * access keys, ProblemDetails errors, request ids, metrics and the OpenAPI document.
 */
export async function createApp({ memory, config, logger, metrics }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // JSON bodies (search, ask) are small; uploads are multipart and limited separately.
    bodyLimit: 1024 * 1024,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // One log line per response comes from the onResponse hook below.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    return503OnClosing: true,
    ...serverTimeouts(config.http),
  });
  // First among the hooks: requests refused by the access-key check get a span too.
  registerTracing(app);
  const connections = applyConnectionLimits(app.server, config.http);
  // Kept-alive connections would otherwise hold the shutdown for up to keepAliveTimeoutMs.
  app.addHook('preClose', async () => connections.closeIdle());
  const startedAt = Date.now();
  const keys = config.auth.enabled ? new AccessKeys(config.auth.keys) : undefined;
  const header = config.auth.header.toLowerCase();

  // preservePath: file names arrive as sent, so a name with a path is refused rather than silently cut.
  await app.register(multipart, { throwFileSizeLimit: true, preservePath: true });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Before the access keys: a web page or a rebound DNS name gets 403 whether keys are set or not.
  registerHostOriginChecks(app, { allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins, bindHost: config.host });
  app.addHook('onRequest', async (request, reply) => {
    if (!keys || request.routeOptions.config.public) return;
    const verdict = keys.check(request.headers[header]);
    if (verdict === 'missing') {
      return reply
        .code(401)
        .type('application/problem+json')
        .send(problem(401, missingKeyMessage(config.auth.header, request.headers), { code: 'unauthorized', requestId: request.id }));
    }
    if (verdict === 'wrong') {
      return reply
        .code(403)
        .type('application/problem+json')
        .send(problem(403, wrongKeyMessage(config.auth.header), { code: 'forbidden', requestId: request.id }));
    }
  });

  // A long answer is not cut by the idle timeout; an upload's body is read by its handler, which suspends it then.
  app.addHook('preHandler', async (request, reply) => {
    if (!request.isMultipart()) suspendIdleTimeout(request.raw, reply.raw, config.http.connectionTimeoutMs);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    const fields = { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (foundClosed(request)) return; // logged by the error handler
    if (reply.statusCode >= 500) request.log.error(fields, 'request failed');
    else request.log.info(fields, 'request');
  });

  app.setErrorHandler(async (error, request, reply) => {
    const { status, body, internal, retryAfterSeconds } = toProblem(error);
    // A client that hung up (mid-upload, mid-answer) is no fault of the service: no stack, no alarm.
    if (clientClosed(request)) {
      request.log.info(
        { method: request.method, url: request.url, ms: Math.round(reply.elapsedTime), reason: (error as Error).message },
        'client closed the connection',
      );
      return reply.code(499).send();
    }
    if (internal) request.log.error({ err: error }, 'unhandled error');
    // A body too slow is not read further: the connection cannot carry another request.
    if (status === 408) reply.header('connection', 'close');
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    return reply
      .code(status)
      .type('application/problem+json')
      .send({ ...body, instance: request.url.split('?')[0], requestId: request.id });
  });

  app.setNotFoundHandler(async (request, reply) =>
    reply
      .code(404)
      .type('application/problem+json')
      .send(problem(404, `no route for ${request.method} ${request.url.split('?')[0]}`, { code: 'not_found', requestId: request.id })),
  );

  registerSystemRoutes(app, {
    startedAt,
    metrics,
    docs: config.docs,
    openApi: openApiDocument({ version: SERVICE_VERSION, authHeader: config.auth.enabled ? config.auth.header : undefined }),
  });
  registerUploadRoute(app, memory, {
    maxUploadBytes: config.maxUploadBytes,
    spoolDirectory: uploadSpoolDirectory(config.dataDirectory),
    minBytesPerSecond: config.http.minUploadBytesPerSecond,
    minRateGraceMs: config.http.minUploadRateGraceMs,
    connectionTimeoutMs: config.http.connectionTimeoutMs,
  });
  registerDocumentRoutes(app, memory);
  registerDocumentListRoutes(app, memory);
  registerRedriveRoute(app, memory);
  registerIndexRoutes(app, memory);
  registerRetrievalRoutes(app, memory);
  registerSyncRoutes(app, memory, { roots: config.syncRoots, allowPrivateNetworks: config.web.allowPrivateNetworks });
  registerConsoleRoutes(app, { authHeader: config.auth.header });
  registerMcpRoutes(app, memory, config, metrics);
  return app;
}
