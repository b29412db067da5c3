import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toMemoryFilters, type MemoryService, type RetrievalOptions } from '@km/core';
import { checkRetrievalArgs } from '@km/core/connector';
import { HttpProblem } from '../http/problem-details.js';
import { readSearchModeFields, type SearchModeFields } from '../http/search-mode-fields.js';
import { streamAnswer } from '../http/sse-stream.js';

/** Body of `POST /search` (KM's SearchQuery, plus km's `mode`, `fusion` and `rerank`). */
interface SearchQuery extends SearchModeFields {
  index?: string | null;
  query?: string | null;
  filters?: unknown;
  minRelevance?: number | null;
  limit?: number | null;
  args?: Record<string, unknown> | null;
}

/** Body of `POST /ask` (KM's MemoryQuery, plus km's `mode`, `fusion` and `rerank`). */
interface MemoryQuery extends SearchModeFields {
  index?: string | null;
  question?: string | null;
  filters?: unknown;
  minRelevance?: number | null;
  stream?: boolean | null;
  args?: Record<string, unknown> | null;
}

/** `POST /search` and `POST /ask` (JSON, or server-sent events when `stream` is true). */
export function registerRetrievalRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.post<{ Body: SearchQuery }>('/search', async (request, reply) => {
    const body = jsonBody<SearchQuery>(request.body);
    const query = body.query ?? '';
    if (typeof query !== 'string') throw new HttpProblem(400, "'query' must be a string", 'invalid_argument');
    const limit = body.limit ?? -1;
    if (typeof limit !== 'number' || !Number.isInteger(limit)) throw new HttpProblem(400, "'limit' must be an integer", 'invalid_argument');
    const options = retrievalOptions(body, reply);
    return unlessGone(request, reply, options, () => memory.search(query, { ...options, limit }));
  });

  app.post<{ Body: MemoryQuery }>('/ask', async (request, reply) => {
    const body = jsonBody<MemoryQuery>(request.body);
    if (typeof body.question !== 'string' || body.question.trim() === '') {
      throw new HttpProblem(400, "'question' is required", 'invalid_argument');
    }
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
      throw new HttpProblem(400, "'stream' must be true or false", 'invalid_argument');
    }
    const options = retrievalOptions(body, reply);
    const question = body.question;
    if (body.stream !== true) return unlessGone(request, reply, options, () => memory.ask(question, options));
    return unlessGone(request, reply, options, async () => {
      await streamAnswer(request, reply, memory.askStreaming(question, options));
      return reply;
    });
  });
}

/**
 * `work`'s result; when it fails because the client hung up (its request's signal aborted), the
 * socket is closed without an error response and the hang-up is logged at info level, not as
 * an error.
 */
async function unlessGone<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  options: RetrievalOptions,
  work: () => Promise<T>,
): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (!options.signal?.aborted) throw error;
    if (!reply.sent) reply.hijack();
    reply.raw.destroy();
    request.log.info({ method: request.method, url: request.url, ms: Math.round(reply.elapsedTime) }, 'client went away: work stopped');
    return reply;
  }
}

function jsonBody<T>(body: unknown): T {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new HttpProblem(400, 'the request body must be a JSON object', 'invalid_argument');
  return body as T;
}

function retrievalOptions(body: SearchQuery | MemoryQuery, reply: FastifyReply): RetrievalOptions {
  if (body.index !== undefined && body.index !== null && typeof body.index !== 'string') {
    throw new HttpProblem(400, "'index' must be a string", 'invalid_index_name');
  }
  const filters = body.filters === undefined || body.filters === null ? [] : body.filters;
  if (!Array.isArray(filters)) throw new HttpProblem(400, "'filters' must be a list of objects", 'invalid_filter');
  // Absent (or null) is not 0: the memory's own default applies.
  const minRelevance = body.minRelevance ?? undefined;
  if (minRelevance !== undefined && typeof minRelevance !== 'number') {
    throw new HttpProblem(400, "'minRelevance' must be a number", 'invalid_argument');
  }
  const searchMode = readSearchModeFields(body);
  // KM's per-request arguments: an unknown or ill-typed one is a 400 naming it.
  checkRetrievalArgs(body.args);
  const controller = new AbortController();
  // The client went away before the answer was written: stop searching and generating.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return {
    index: body.index ?? undefined,
    filters: toMemoryFilters(filters),
    ...(minRelevance !== undefined ? { minRelevance } : {}),
    ...searchMode,
    ...(body.args ? { args: body.args } : {}),
    signal: controller.signal,
  };
}
