import type { FastifyInstance } from 'fastify';
import { normalizeIndexName, type MemoryService } from '@km/core';

/** `GET /indexes` and `DELETE /indexes`. */
export function registerIndexRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get('/indexes', async () => ({ results: await memory.listIndexes() }));

  app.delete<{ Querystring: { index?: string } }>('/indexes', async (request, reply) => {
    const index = normalizeIndexName(request.query.index);
    await memory.deleteIndex(index);
    return reply.code(202).send({ index, message: 'Index deletion request received, pipeline started' });
  });
}
