import type { FastifyInstance } from 'fastify';
import { type MemoryService, normalizeIndexName, validateDocumentId } from '@km/core';
import { HttpProblem } from '../http/problem-details.js';

interface RedriveQuery {
  index?: string;
  documentId?: string;
  /** `true`: also documents whose state stopped changing (see `stalledAfterSeconds`). */
  stalled?: string;
  stalledAfterSeconds?: string;
}

/**
 * `POST /redrive` (km's own route; Kernel Memory has none): runs again, from their last completed
 * step, the failed documents of every index, of `index`, or the document `documentId` of `index`
 * (the default index when only `documentId` is given, as on every route);
 * with `stalled=true`, also those whose state has not changed for `stalledAfterSeconds` (20
 * minutes by default). Idempotent. Answers 202 with the documents queued again:
 * `{ redriven: [{ index, documentId, step, was, error? }], checked }`.
 */
export function registerRedriveRoute(app: FastifyInstance, memory: MemoryService): void {
  app.post<{ Querystring: RedriveQuery }>('/redrive', async (request, reply) => {
    const { index, documentId, stalled, stalledAfterSeconds } = request.query;
    const seconds = stalledAfterSeconds === undefined ? undefined : Number(stalledAfterSeconds);
    if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 0)) {
      throw new HttpProblem(
        400,
        `'stalledAfterSeconds' must be a number of seconds >= 0, got ${JSON.stringify(stalledAfterSeconds)}`,
        'invalid_argument',
      );
    }
    if (stalled !== undefined && stalled !== 'true' && stalled !== 'false') {
      throw new HttpProblem(400, `'stalled' must be true or false, got ${JSON.stringify(stalled)}`, 'invalid_argument');
    }
    const result = await memory.redrive({
      ...(index !== undefined || documentId !== undefined ? { index: normalizeIndexName(index) } : {}),
      ...(documentId !== undefined ? { documentId: validateDocumentId(documentId) } : {}),
      stalled: stalled === 'true',
      ...(seconds !== undefined ? { stalledAfterMs: seconds * 1000 } : {}),
    });
    return reply.code(202).send(result);
  });
}
