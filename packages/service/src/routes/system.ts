import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics.js';

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

/** `/`, `/health`, `/metrics`, `/openapi.json` and the Swagger UI page at `/docs`. */
export function registerSystemRoutes(
  app: FastifyInstance,
  options: { startedAt: number; metrics: ServiceMetrics; openApi: Record<string, unknown>; docs: boolean },
): void {
  // A JSON string, as Kernel Memory answers.
  app.get('/', async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(`Ingestion service is running. Uptime: ${Math.floor((Date.now() - options.startedAt) / 1000)} secs.`)),
  );
  app.get('/health', { config: { public: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('Healthy'));
  app.get('/metrics', async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
  if (!options.docs) return;

  app.get('/openapi.json', { config: { public: true } }, async () => options.openApi);
  app.get('/docs', { config: { public: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE));
  const assets = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.get<{ Params: { asset: string } }>('/docs/:asset', { config: { public: true } }, async (request, reply) => {
    const type = SWAGGER_ASSETS[request.params.asset];
    if (!type) return reply.callNotFound();
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=86400')
      .send(await readFile(join(assets, request.params.asset)));
  });
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>km memory service: API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  </script>
</body>
</html>
`;
