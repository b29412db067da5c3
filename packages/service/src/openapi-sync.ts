/** Builds the responses of an operation: a ProblemDetails answer for each error status. */
type Errors = (...codes: number[]) => Record<string, unknown>;
type Problem = (description: string) => Record<string, unknown>;

/**
 * The OpenAPI paths and schemas of km's sync jobs (`/sync`, `/sync/{jobId}`), merged into the
 * service's document by `openApiDocument`.
 */
export function syncOpenApi(errors: Errors, problem: Problem): { paths: Record<string, unknown>; schemas: Record<string, unknown> } {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
  const jobId = { name: 'jobId', in: 'path', required: true, schema: { type: 'string' }, description: 'The job id `POST /sync` gave.' };
  const counts = {
    listed: { type: 'integer', description: 'Items the source listed.' },
    added: { type: 'integer' },
    updated: { type: 'integer' },
    unchanged: { type: 'integer' },
    deleted: { type: 'integer' },
    failed: { type: 'integer' },
  };
  const globs = { type: 'array', items: { type: 'string' }, example: ['**/*.md'] };
  return {
    paths: {
      '/sync': {
        post: {
          summary: 'Start a sync job: make an index hold what a folder or a web site holds (km extension).',
          description:
            "The job runs in the background: new and changed items are ingested, the documents of items gone are deleted (unless `deleteMissing` is false). A folder is read on the service's disk, only under `KM_SYNC_ROOTS` (403 without it, or outside it); a web site through the address guard of web imports (`KM_WEB_ALLOW_PRIVATE_NETWORKS`). 409 `sync_busy` while a sync of the same source into the same index runs.",
          operationId: 'StartSync',
          requestBody: { required: true, content: json('SyncRequest') },
          responses: {
            202: {
              description: 'Accepted: the job, running.',
              headers: { Location: { description: 'The job: `/sync/{jobId}`.', schema: { type: 'string' } } },
              content: json('SyncJob'),
            },
            409: problem('Conflict (`sync_busy`): a sync of this source into this index is running'),
            ...errors(400, 401, 403, 503),
          },
        },
        get: {
          summary: 'The recent sync jobs, newest first (km extension).',
          operationId: 'ListSyncJobs',
          responses: { 200: { description: 'OK', content: json('SyncJobList') }, ...errors(401, 403) },
        },
      },
      '/sync/{jobId}': {
        get: {
          summary: 'A sync job: its state, its counts so far, its report once finished (km extension).',
          operationId: 'GetSyncJob',
          parameters: [jobId],
          responses: { 200: { description: 'OK', content: json('SyncJob') }, ...errors(401, 403, 404) },
        },
        delete: {
          summary: 'Cancel a sync job (km extension).',
          description:
            'A running job is asked to stop (202) and turns `cancelled` once it has; nothing is deleted by a sync that did not finish its listing. A finished job is answered as it is (200).',
          operationId: 'CancelSyncJob',
          parameters: [jobId],
          responses: {
            200: { description: 'The job had finished already.', content: json('SyncJob') },
            202: { description: 'Asked to stop.', content: json('SyncJob') },
            ...errors(401, 403, 404),
          },
        },
      },
    },
    schemas: {
      SyncRequest: {
        type: 'object',
        required: ['source'],
        properties: {
          index: { type: 'string', description: 'Index; empty means `default`.' },
          tags: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string', nullable: true } },
            description: 'Tags given to every synced document; `__` keys are reserved.',
          },
          deleteMissing: { type: 'boolean', description: 'Delete the documents of items the source no longer lists. Default true.' },
          concurrency: { type: 'integer', minimum: 1, maximum: 32, description: 'Items ingested at once. Default 4.' },
          source: ref('SyncSourceRequest'),
        },
      },
      SyncSourceRequest: {
        oneOf: [ref('FolderSyncSource'), ref('WebSyncSource')],
        discriminator: { propertyName: 'type' },
      },
      FolderSyncSource: {
        type: 'object',
        required: ['type', 'path'],
        properties: {
          type: { type: 'string', enum: ['folder'] },
          path: { type: 'string', description: "A folder on the service's disk, inside one of KM_SYNC_ROOTS." },
          include: { ...globs, description: 'Globs of the files to sync; default every file.' },
          exclude: { ...globs, description: 'Globs of the files to leave out (`.gitignore` and `.kmignore` are read too).' },
        },
      },
      WebSyncSource: {
        type: 'object',
        required: ['type', 'url'],
        properties: {
          type: { type: 'string', enum: ['web'] },
          url: { type: 'string', format: 'uri', description: 'The start URL; the crawl stays under its origin and path.' },
          sitemap: {
            oneOf: [{ type: 'boolean' }, { type: 'string', format: 'uri' }],
            description: "`true`: the site's `/sitemap.xml`; a URL: that sitemap. Default: follow links.",
          },
          maxPages: { type: 'integer', minimum: 1, maximum: 10000, description: 'Most pages listed. Default 500.' },
        },
      },
      SyncJobCounts: { type: 'object', properties: counts },
      SyncJob: {
        type: 'object',
        required: ['jobId', 'status', 'index', 'source', 'sourceId', 'phase', 'counts', 'startedAt'],
        properties: {
          jobId: { type: 'string' },
          status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
          index: { type: 'string' },
          source: ref('SyncSourceRequest'),
          sourceId: { type: 'string', description: 'The source id the synced documents carry (`folder:/abs/path`, the start URL).' },
          phase: { type: 'string', enum: ['listing', 'ingesting', 'deleting', 'done'] },
          counts: ref('SyncJobCounts'),
          startedAt: { type: 'string', format: 'date-time' },
          finishedAt: { type: 'string', format: 'date-time' },
          report: ref('SyncReport'),
          error: { type: 'string', description: 'Why it failed, or `cancelled`.' },
          errorCode: { type: 'string', description: 'The km error code of a failure, e.g. `sync_busy`.' },
        },
      },
      SyncReport: {
        type: 'object',
        properties: {
          source: { type: 'string' },
          kind: { type: 'string', description: '`folder`, `web`…' },
          index: { type: 'string' },
          ...counts,
          failures: {
            type: 'array',
            description: 'The items that failed (at most 100).',
            items: {
              type: 'object',
              properties: { itemId: { type: 'string' }, documentId: { type: 'string' }, error: { type: 'string' } },
            },
          },
          complete: { type: 'boolean', description: 'False when the listing did not complete: nothing was deleted.' },
          startedAt: { type: 'string', format: 'date-time' },
          durationMs: { type: 'integer' },
        },
      },
      SyncJobList: { type: 'object', properties: { jobs: { type: 'array', items: ref('SyncJob') } } },
    },
  };
}
