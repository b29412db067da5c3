import type { FastifyInstance } from 'fastify';
import { normalizeIndexNameLogged, type MemoryService } from '@km/core';

/** `GET /indexes` and `DELETE /indexes`. */
export function registerIndexRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get('/indexes', async () => ({ results: await memory.listIndexes() }));

  app.delete<{ Querystring: { index?: string } }>('/indexes', async (request, reply) => {
    const index = normalizeIndexNameLogged(request.query.index, memory.orchestrator.context.logger);
    await memory.deleteIndex(index);
    return reply.code(202).send({ index, message: 'Index deletion request received, pipeline started' });
  });
}
