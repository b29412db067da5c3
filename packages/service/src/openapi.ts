import { SEARCH_MODES } from '@km/core';
import { syncOpenApi } from './openapi-sync.js';

/**
 * The OpenAPI 3 description of the service: Kernel Memory v1's API, field for field, plus
 * km's additions (the `failed` status, NOT filters with `!key`, `code` in problems,
 * `/download`, `/metrics`, `mode`, `fusion` and `rerank` in search and ask, document listing and tag updates, sync jobs).
 */
export function openApiDocument(options: { version: string; authHeader: string | undefined }): Record<string, unknown> {
  const problem = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
  });
  const errors = (...codes: number[]) => {
    const names: Record<number, string> = {
      400: 'Bad Request',
      401: 'Unauthorized: no access key',
      403: 'Forbidden: wrong access key, or a Host or browser Origin not allowed (KM_ALLOWED_HOSTS, KM_ALLOWED_ORIGINS)',
      404: 'Not Found',
      413: 'Content Too Large',
      503: 'Service Unavailable: a backend is down, throttled or timing out; retry after Retry-After',
    };
    const retryAfter = {
      'Retry-After': { description: 'Seconds to wait before retrying: what the backend asked, else 5.', schema: { type: 'integer' } },
    };
    return Object.fromEntries(
      codes.map((c) => [String(c), c === 503 ? { ...problem(names[c]!), headers: retryAfter } : problem(names[c] ?? 'Error')]),
    );
  };
  const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });
  const query = (name: string, required: boolean, description: string) => ({
    name,
    in: 'query',
    required,
    schema: { type: 'string' },
    description,
  });
  const nullableString = { type: 'string', nullable: true };
  const tagMap = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', nullable: true } } };
  const filters = {
    type: 'array',
    nullable: true,
    description:
      'OR across the list, AND inside one filter. Each key lists values the record must have; a key written `!key` lists values it must not have (km extension).',
    items: tagMap,
  };
  // km's additions to search and ask: how to search, and whether to rerank.
  const searchModeFields = {
    mode: {
      type: 'string',
      nullable: true,
      enum: [...SEARCH_MODES],
      description:
        "km extension. `vector` (embeddings), `lexical` (words, BM25-style) or `hybrid` (both, fused). `lexical` and `hybrid` need a memory DB that can search words (400 otherwise). Default: the service's KM_SEARCH_MODE, else hybrid where the memory DB can search words, else vector.",
    },
    fusion: {
      type: 'object',
      nullable: true,
      description: 'km extension. How `hybrid` fuses its two rankings.',
      additionalProperties: false,
      properties: {
        method: {
          type: 'string',
          enum: ['rrf', 'weighted'],
          description: 'Reciprocal rank fusion, or a weighted sum of the scores. Default: rrf.',
        },
        vectorWeight: { type: 'number', format: 'double', minimum: 0, maximum: 1, description: 'Weight of the vector side. Default: 0.5.' },
        rrfK: {
          type: 'number',
          format: 'double',
          exclusiveMinimum: true,
          minimum: 0,
          description: 'The k of reciprocal rank fusion. Default: 60.',
        },
      },
    },
    rerank: {
      nullable: true,
      oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['mmr'] }],
      description:
        'km extension. `true`: rerank with the configured reranker (KM_RERANKER; 400 when none is); `mmr`: maximal marginal relevance, for diversity; `false`: no reranking. Default: the configured reranker, if any.',
    },
  };

  const sync = syncOpenApi(errors, problem);

  return {
    openapi: '3.0.4',
    info: {
      title: 'km memory service',
      version: options.version,
      description: 'Kernel Memory v1 compatible HTTP API: ingest documents asynchronously, then search and ask over them with citations.',
    },
    paths: {
      '/': {
        get: {
          summary: 'Service status and uptime.',
          operationId: 'ServiceStatus',
          responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'string' } } } }, ...errors(401, 403) },
        },
      },
      '/health': {
        get: {
          summary: 'Liveness check (no access key needed).',
          operationId: 'ServiceHealth',
          security: [],
          responses: { 200: { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/upload': {
        post: {
          summary: 'Upload a document (one or more files) and start its ingestion pipeline.',
          operationId: 'UploadDocument',
          requestBody: {
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: {
                    index: { type: 'string', description: 'Index to store the memories in; empty means `default`.' },
                    documentId: {
                      type: 'string',
                      description: 'Document id; a new one when missing. Re-uploading an id replaces the document.',
                    },
                    tags: {
                      type: 'array',
                      items: { type: 'string' },
                      example: ['group:abc123', 'user:xyz'],
                      description: '`key:value` pairs; `key:` is a key without value. Keys starting with `__` are reserved.',
                    },
                    steps: {
                      type: 'array',
                      items: { type: 'string' },
                      example: ['extract', 'partition', 'gen_embeddings', 'save_records'],
                    },
                    args: {
                      type: 'string',
                      description: 'A JSON object of arguments for the handlers, e.g. `{"maxTokensPerChunk": 500}`.',
                    },
                    files: { type: 'array', items: { type: 'string', format: 'binary' } },
                  },
                },
                encoding: { tags: { explode: true }, steps: { explode: true } },
              },
            },
          },
          responses: {
            202: { description: 'Accepted; `Location` points at the status.', content: json('UploadAccepted') },
            ...errors(400, 401, 403, 413, 503),
          },
        },
      },
      '/upload-status': {
        get: {
          summary: 'The pipeline status of a document.',
          operationId: 'CheckDocumentStatus',
          parameters: [query('index', false, 'Index; empty means `default`.'), query('documentId', true, 'Document id.')],
          responses: { 200: { description: 'OK', content: json('DataPipelineStatus') }, ...errors(400, 401, 403, 404) },
        },
      },
      '/ask': {
        post: {
          summary:
            'Answer a question from the memories, with citations. With `stream: true` the answer comes as server-sent events, `data: [DONE]` last.',
          operationId: 'AnswerQuestion',
          requestBody: { required: true, content: json('MemoryQuery') },
          responses: {
            200: {
              description: 'OK',
              content: {
                ...json('MemoryAnswer'),
                'text/event-stream': { schema: { type: 'string', description: 'Lines `data: {MemoryAnswer}`, then `data: [DONE]`.' } },
              },
            },
            ...errors(400, 401, 403, 503),
          },
        },
      },
      '/mcp': {
        post: {
          summary:
            'Model Context Protocol endpoint (Streamable HTTP, stateless): JSON-RPC requests for the tools search, ask, import_text, import_url, list_indexes, list_documents, update_document_tags, delete_document and get_document_status (only the read tools with `KM_MCP_READ_ONLY=true`; absent with `KM_MCP=false`). Use an MCP client, not plain calls.',
          operationId: 'ModelContextProtocol',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message.' } } },
          },
          responses: {
            200: { description: 'A JSON-RPC response.', content: { 'application/json': { schema: { type: 'object' } } } },
            ...errors(400, 401, 403),
          },
        },
      },
      '/search': {
        post: {
          summary: 'Search the memories; results are grouped by source file. An empty query lists by filters.',
          operationId: 'SearchDocumentSnippets',
          requestBody: { required: true, content: json('SearchQuery') },
          responses: { 200: { description: 'OK', content: json('SearchResult') }, ...errors(400, 401, 403, 503) },
        },
      },
      '/indexes': {
        get: {
          summary: 'List the indexes.',
          operationId: 'ListIndexes',
          responses: { 200: { description: 'OK', content: json('IndexCollection') }, ...errors(401, 403) },
        },
        delete: {
          summary: 'Delete an index, its memories and files (queued).',
          operationId: 'DeleteIndexByName',
          parameters: [query('index', false, 'Index; empty means `default`.')],
          responses: { 202: { description: 'Accepted', content: json('DeleteAccepted') }, ...errors(400, 401, 403) },
        },
      },
      '/documents': {
        get: {
          summary: "A page of an index's documents, with their state, tags and files (km extension: KM has DELETE only).",
          description:
            'Documents in id order, 100 a page by default; `nextCursor` gives the next page (null on the last). Filters by tags (`tag=key:value`, repeated: all of them; or `filters`, KM filter JSON: OR across the list) and by state. Each page reads the state of at most 2,000 documents, so a page of a rare filter may be short, or empty, and still have a `nextCursor`.',
          operationId: 'ListDocuments',
          parameters: [
            query('index', false, 'Index; empty means `default`.'),
            {
              ...query('limit', false, 'Documents per page, 1 to 1000. Default 100.'),
              schema: { type: 'integer', minimum: 1, maximum: 1000 },
            },
            query('cursor', false, '`nextCursor` of the previous page.'),
            {
              name: 'state',
              in: 'query',
              required: false,
              style: 'form',
              explode: false,
              schema: { type: 'array', items: { $ref: '#/components/schemas/DocumentState' } },
              description: 'Only documents in these states (comma-separated or repeated).',
            },
            {
              name: 'tag',
              in: 'query',
              required: false,
              style: 'form',
              explode: true,
              schema: { type: 'array', items: { type: 'string' } },
              description: '`key:value` (KM tag syntax), repeated: documents with all of them.',
            },
            query('filters', false, 'KM filter JSON, one object or a list: `[{"type":["news"]},{"user":["alice"]}]`.'),
          ],
          responses: { 200: { description: 'OK', content: json('DocumentList') }, ...errors(400, 401, 403, 503) },
        },
        delete: {
          summary: 'Delete a document, its memories and files (queued).',
          operationId: 'DeleteDocumentById',
          parameters: [query('index', false, 'Index; empty means `default`.'), query('documentId', true, 'Document id.')],
          responses: { 202: { description: 'Accepted', content: json('DeleteAccepted') }, ...errors(400, 401, 403) },
        },
      },
      '/documents/files': {
        get: {
          summary: 'The files stored with a document: its uploads and, after each, the files the pipeline made (km extension).',
          description: 'Generated files (extracted text, partitions, embeddings) download with `GET /download?…&artifacts=true`.',
          operationId: 'ListDocumentFiles',
          parameters: [query('index', false, 'Index; empty means `default`.'), query('documentId', true, 'Document id.')],
          responses: { 200: { description: 'OK', content: json('DocumentFiles') }, ...errors(400, 401, 403, 404, 503) },
        },
      },
      '/documents/tags': {
        put: {
          summary: "Replace a document's tags without ingesting it again (km extension).",
          description:
            "The new tags replace the document's own tags in its state and on every memory record (reserved `__` tags stay and cannot be given). 409 while the document is being ingested or deleted.",
          operationId: 'UpdateDocumentTags',
          parameters: [query('index', false, 'Index; empty means `default`.'), query('documentId', true, 'Document id.')],
          requestBody: { required: true, content: json('DocumentTagsUpdate') },
          responses: {
            200: { description: 'OK: the document with its new tags.', content: json('DocumentSummary') },
            409: problem('Conflict: the document is being ingested or deleted; try again once it is done'),
            ...errors(400, 401, 403, 404, 503),
          },
        },
      },
      '/redrive': {
        post: {
          summary: 'Run failed documents again from their last completed step (km only; idempotent).',
          description:
            'Documents whose step kept failing past the retry budget (KM_RETRY_BUDGET_MS), or whose queue gave up, are failed with the reason; this queues each again from its first step not completed, in a new execution. `stalled=true` also takes documents with steps left whose state has not changed for `stalledAfterSeconds` (their message lost while the pipeline state was unreachable). A document that failed with no step left (a file that could not be decoded) needs a new upload and is not touched.',
          operationId: 'Redrive',
          parameters: [
            query('index', false, 'Only this index; with `documentId`, empty means `default`. Absent: every index.'),
            query('documentId', false, 'Only this document.'),
            query('stalled', false, '`true`: also documents whose state stopped changing.'),
            query('stalledAfterSeconds', false, 'With `stalled`: seconds without a change. Default 1200.'),
          ],
          responses: { 202: { description: 'Accepted', content: json('RedriveResult') }, ...errors(400, 401, 403) },
        },
      },
      '/download': {
        get: {
          summary: 'Download a file of a document.',
          operationId: 'DownloadFile',
          parameters: [
            query('index', false, 'Index; empty means `default`.'),
            query('documentId', true, 'Document id.'),
            query('filename', true, 'File name.'),
          ],
          responses: {
            200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics: HTTP requests and pipeline step durations.',
          operationId: 'Metrics',
          responses: { 200: { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errors(401, 403) },
        },
      },
      ...sync.paths,
    },
    components: {
      schemas: {
        ...sync.schemas,
        UploadAccepted: { type: 'object', properties: { index: nullableString, documentId: nullableString, message: nullableString } },
        DeleteAccepted: { type: 'object', properties: { index: nullableString, documentId: nullableString, message: nullableString } },
        RedriveResult: {
          type: 'object',
          properties: {
            redriven: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  index: { type: 'string' },
                  documentId: { type: 'string' },
                  step: { type: 'string', description: 'The first step run again.' },
                  was: { type: 'string', enum: ['failed', 'stalled'] },
                  error: { type: 'string', description: 'The failure it had.' },
                },
              },
            },
            checked: { type: 'integer', description: 'Documents whose state was read.' },
          },
        },
        IndexCollection: {
          type: 'object',
          properties: { results: { type: 'array', items: { $ref: '#/components/schemas/IndexDetails' } } },
        },
        IndexDetails: { type: 'object', properties: { name: nullableString } },
        DataPipelineStatus: {
          type: 'object',
          properties: {
            completed: { type: 'boolean' },
            failed: { type: 'boolean', description: 'km: the pipeline stopped on an error; see `error`.' },
            error: { type: 'string', description: 'km: why the pipeline failed.' },
            failed_files: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, error: { type: 'string' } } } },
            empty: { type: 'boolean' },
            index: nullableString,
            document_id: nullableString,
            tags: tagMap,
            creation: { type: 'string', format: 'date-time' },
            last_update: { type: 'string', format: 'date-time' },
            steps: { type: 'array', items: { type: 'string' } },
            remaining_steps: { type: 'array', items: { type: 'string' } },
            completed_steps: { type: 'array', items: { type: 'string' } },
          },
        },
        MemoryQuery: {
          type: 'object',
          properties: {
            index: nullableString,
            question: { type: 'string' },
            filters,
            minRelevance: { type: 'number', format: 'double', nullable: true, description: "Default: the service's default (0)." },
            ...searchModeFields,
            stream: { type: 'boolean' },
            args: { type: 'object', nullable: true, additionalProperties: true },
          },
        },
        SearchQuery: {
          type: 'object',
          properties: {
            index: nullableString,
            query: nullableString,
            filters,
            minRelevance: { type: 'number', format: 'double', nullable: true, description: "Default: the service's default (0)." },
            ...searchModeFields,
            limit: { type: 'integer', format: 'int32', description: '`<= 0` means the configured maximum.' },
            args: { type: 'object', nullable: true, additionalProperties: true },
          },
        },
        SearchResult: {
          type: 'object',
          properties: {
            query: nullableString,
            noResult: { type: 'boolean' },
            results: { type: 'array', items: { $ref: '#/components/schemas/Citation' } },
          },
        },
        Citation: {
          type: 'object',
          properties: {
            link: nullableString,
            index: nullableString,
            documentId: nullableString,
            fileId: nullableString,
            sourceContentType: nullableString,
            sourceName: nullableString,
            sourceUrl: nullableString,
            partitions: { type: 'array', items: { $ref: '#/components/schemas/Partition' } },
          },
        },
        Partition: {
          type: 'object',
          properties: {
            text: nullableString,
            relevance: { type: 'number', format: 'float', description: 'Cosine similarity of query and partition.' },
            partitionNumber: { type: 'integer', format: 'int32' },
            sectionNumber: { type: 'integer', format: 'int32', description: 'Page number for PDFs.' },
            lastUpdate: { type: 'string', format: 'date-time' },
            tags: tagMap,
          },
        },
        MemoryAnswer: {
          type: 'object',
          properties: {
            streamState: { $ref: '#/components/schemas/StreamStates' },
            question: nullableString,
            noResult: { type: 'boolean' },
            noResultReason: nullableString,
            text: nullableString,
            tokenUsage: { type: 'array', items: { $ref: '#/components/schemas/TokenUsage' } },
            relevantSources: { type: 'array', items: { $ref: '#/components/schemas/Citation' } },
          },
        },
        StreamStates: { type: 'string', enum: ['error', 'reset', 'append', 'last'] },
        TokenUsage: {
          type: 'object',
          properties: {
            timestamp: { type: 'string', format: 'date-time' },
            serviceType: nullableString,
            modelType: nullableString,
            modelName: nullableString,
            tokenizerTokensIn: { type: 'integer', nullable: true },
            tokenizerTokensOut: { type: 'integer', nullable: true },
            serviceTokensIn: { type: 'integer', nullable: true },
            serviceTokensOut: { type: 'integer', nullable: true },
            serviceReasoningTokens: { type: 'integer', nullable: true },
          },
        },
        DocumentState: { type: 'string', enum: ['completed', 'in_progress', 'failed', 'deleting'] },
        DocumentList: {
          type: 'object',
          required: ['index', 'documents', 'nextCursor'],
          properties: {
            index: { type: 'string' },
            documents: { type: 'array', items: { $ref: '#/components/schemas/DocumentSummary' } },
            nextCursor: { ...nullableString, description: 'Pass as `cursor` for the next page; null on the last.' },
          },
        },
        DocumentSummary: {
          type: 'object',
          required: ['index', 'documentId', 'state', 'tags', 'files', 'size', 'creation', 'lastUpdate', 'steps', 'remainingSteps'],
          properties: {
            index: { type: 'string' },
            documentId: { type: 'string' },
            state: { $ref: '#/components/schemas/DocumentState' },
            error: { type: 'string', description: 'Why the document failed (state `failed` only).' },
            tags: tagMap,
            files: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  size: { type: 'integer', format: 'int64' },
                  mimeType: { type: 'string' },
                  error: { type: 'string', description: 'Set when this file could not be processed.' },
                },
              },
            },
            size: { type: 'integer', format: 'int64', description: 'Bytes of the uploaded files.' },
            creation: { type: 'string', format: 'date-time' },
            lastUpdate: { type: 'string', format: 'date-time' },
            steps: { type: 'array', items: { type: 'string' } },
            remainingSteps: { type: 'array', items: { type: 'string' } },
          },
        },
        DocumentFiles: {
          type: 'object',
          properties: {
            index: { type: 'string' },
            documentId: { type: 'string' },
            files: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  size: { type: 'integer', format: 'int64' },
                  mimeType: { type: 'string' },
                  artifactType: {
                    type: 'string',
                    description: '`uploaded_file`, `extracted_text`, `text_partition`, `text_embedding_vector`, `synthetic_data`…',
                  },
                  parent: { type: 'string', description: 'For a generated file: the uploaded file it comes from.' },
                  partitionNumber: { type: 'integer', format: 'int32' },
                  sectionNumber: { type: 'integer', format: 'int32' },
                },
              },
            },
          },
        },
        DocumentTagsUpdate: {
          type: 'object',
          required: ['tags'],
          properties: { tags: { ...tagMap, description: "The document's new own tags; `__` keys are reserved." } },
        },
        ProblemDetails: {
          type: 'object',
          properties: {
            type: nullableString,
            title: nullableString,
            status: { type: 'integer', nullable: true },
            detail: nullableString,
            instance: nullableString,
            code: { type: 'string', description: 'km error code, e.g. `invalid_tag`.' },
            requestId: { type: 'string' },
          },
          additionalProperties: true,
        },
      },
      ...(options.authHeader
        ? {
            securitySchemes: {
              auth: {
                type: 'apiKey',
                name: options.authHeader,
                in: 'header',
                description: 'The access key (one of the two configured keys), as is or as `Bearer <key>`.',
              },
            },
          }
        : {}),
    },
    ...(options.authHeader ? { security: [{ auth: [] }] } : {}),
  };
}
