import type { FastifyInstance } from 'fastify';
import {
  type DocumentState,
  MAX_DOCUMENT_PAGE,
  type MemoryFilter,
  type MemoryService,
  normalizeIndexNameLogged,
  toMemoryFilters,
} from '@km/core';
import { HttpProblem } from '../http/problem-details.js';
import { parseTags } from '../http/upload-form.js';
import { documentParams } from './documents.js';

interface ListQuery {
  index?: string;
  limit?: string;
  cursor?: string;
  /** One or more of `completed`, `in_progress`, `failed`, `deleting`: repeated or comma-separated. */
  state?: string | string[];
  /** `key:value` (KM's tag syntax), repeated: documents with all of them. */
  tag?: string | string[];
  /** KM's filter JSON: one object or a list of objects (OR across the list, AND inside one). */
  filters?: string;
}

/**
 * km's document routes beside Kernel Memory's: `GET /documents` (a page of an index's documents
 * with their state, tags and files; KM has `DELETE /documents` only), `GET /documents/files` (a
 * document's stored files) and `PUT /documents/tags` (its tags, changed without ingesting it again).
 */
export function registerDocumentListRoutes(app: FastifyInstance, memory: MemoryService): void {
  const logger = memory.orchestrator.context.logger;

  app.get<{ Querystring: ListQuery }>('/documents', async (request) => {
    const query = request.query;
    const filters = [...jsonFilters(query.filters), ...tagFilter(query.tag)];
    return memory.listDocuments({
      index: normalizeIndexNameLogged(query.index, logger),
      ...(query.limit !== undefined ? { limit: pageSize(query.limit) } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
      filters,
      states: states(query.state),
    });
  });

  app.get<{ Querystring: { index?: string; documentId?: string } }>('/documents/files', async (request) => {
    const { index, documentId } = documentParams(request.query, memory);
    return memory.getDocumentFiles(documentId, index);
  });

  app.put<{ Querystring: { index?: string; documentId?: string }; Body: unknown }>('/documents/tags', async (request) => {
    const { index, documentId } = documentParams(request.query, memory);
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !('tags' in body)) {
      throw new HttpProblem(400, 'the body must be a JSON object {"tags": {"key": ["value", …]}}', 'invalid_tag');
    }
    return memory.updateDocumentTags(documentId, (body as { tags: unknown }).tags as Record<string, Array<string | null>>, index);
  });
}

function pageSize(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(limit) || limit < 1 || limit > MAX_DOCUMENT_PAGE) {
    throw new HttpProblem(
      400,
      `'limit' must be a whole number from 1 to ${MAX_DOCUMENT_PAGE}, got ${JSON.stringify(value)}`,
      'invalid_argument',
    );
  }
  return limit;
}

/** `state=` values, repeated or comma-separated; core's listing refuses an unknown one (`invalid_argument`, 400). */
function states(value: string | string[] | undefined): DocumentState[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '') as DocumentState[];
}

/** `tag=key:value` parameters: one filter holding all of them. */
function tagFilter(value: string | string[] | undefined): MemoryFilter[] {
  const tags = parseTags(Array.isArray(value) ? value : value === undefined ? [] : [value]);
  return Object.keys(tags).length === 0 ? [] : toMemoryFilters([tags]);
}

/** `filters=` KM's filter JSON, one object or a list. */
function jsonFilters(value: string | undefined): MemoryFilter[] {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new HttpProblem(400, `'filters' is not JSON: give a list of {"key": ["value"]} objects`, 'invalid_filter');
  }
  return toMemoryFilters(Array.isArray(parsed) ? parsed : [parsed]);
}
