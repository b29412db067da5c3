import type { FastifyInstance } from 'fastify';
import { type MemoryService, normalizeIndexNameLogged } from '@km/core';
import type { SyncJob, SyncJobList } from '@km/wire';
import { HttpProblem } from '../http/problem-details.js';
import { SyncJobRegistry } from '../sync/sync-job-registry.js';
import { parseSyncRequest } from '../sync/sync-request.js';
import { openSyncSource, SYNC_SOURCE_TYPES, type SyncSourcePolicy } from '../sync/sync-sources.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's sync jobs (`/sync` routes). */
    syncJobs: SyncJobRegistry;
  }
}

/** How long `POST /sync` waits for its sync to begin (take its lease) before answering 202 anyway. */
const BEGIN_WAIT_MS = 2000;

/** The URL of a sync job, as the `Location` of `POST /sync` gives it. */
export function syncJobLocation(jobId: string): string {
  return `/sync/${encodeURIComponent(jobId)}`;
}

/**
 * km's sync jobs: `POST /sync` starts one in the background (202, `Location: /sync/{jobId}`),
 * `GET /sync/{jobId}` follows it (state, counts so far, the final report, the error),
 * `GET /sync` lists the recent ones, `DELETE /sync/{jobId}` cancels one. A second `POST` of the
 * same source into the same index while one runs gets 409 `sync_busy`. Folder syncs read only
 * under `KM_SYNC_ROOTS`; web syncs go through the web fetcher's address guard. Running jobs are
 * cancelled, and awaited, when the service closes.
 */
export function registerSyncRoutes(app: FastifyInstance, memory: MemoryService, policy: SyncSourcePolicy): SyncJobRegistry {
  const logger = memory.orchestrator.context.logger;
  const jobs = new SyncJobRegistry({ logger });
  app.decorate('syncJobs', jobs);
  app.addHook('onClose', async () => jobs.close());

  app.post<{ Body: unknown }>('/sync', async (request, reply) => {
    const body = parseSyncRequest(request.body, SYNC_SOURCE_TYPES);
    const index = normalizeIndexNameLogged(body.index, logger);
    const source = await openSyncSource(body.source, policy);
    const { job, started } = jobs.start({
      index,
      source: body.source,
      sourceId: source.id,
      run: async (signal, onProgress) => {
        try {
          return await memory.sync(source, {
            index,
            ...(body.tags ? { tags: body.tags } : {}),
            ...(body.deleteMissing !== undefined ? { deleteMissing: body.deleteMissing } : {}),
            ...(body.concurrency !== undefined ? { concurrency: body.concurrency } : {}),
            signal,
            onProgress,
          });
        } finally {
          await source.close?.().catch(() => undefined);
        }
      },
    });
    if (!started) {
      await source.close?.().catch(() => undefined);
      reply.header('location', syncJobLocation(job.jobId));
      throw new HttpProblem(
        409,
        `a sync of ${source.id} into index "${index}" is running already: job ${job.jobId} (${syncJobLocation(job.jobId)})`,
        'sync_busy',
      );
    }
    // A sync refused at once (another process holds its lease: `sync_busy`; a bad option) is this request's error.
    const refused = await jobs.begun(job.jobId, BEGIN_WAIT_MS);
    if (refused) throw refused.error;
    return reply
      .code(202)
      .header('location', syncJobLocation(job.jobId))
      .send(jobs.get(job.jobId) ?? job);
  });

  app.get('/sync', async (): Promise<SyncJobList> => ({ jobs: jobs.list() }));

  app.get<{ Params: { jobId: string } }>('/sync/:jobId', async (request): Promise<SyncJob> => {
    const job = jobs.get(request.params.jobId);
    if (!job) throw notFound(request.params.jobId);
    return job;
  });

  app.delete<{ Params: { jobId: string } }>('/sync/:jobId', async (request, reply) => {
    const job = jobs.cancel(request.params.jobId);
    if (!job) throw notFound(request.params.jobId);
    // Running: asked to stop, it turns `cancelled` once it has. Finished: nothing to do.
    return reply.code(job.status === 'running' ? 202 : 200).send(job);
  });

  return jobs;
}

function notFound(jobId: string): HttpProblem {
  return new HttpProblem(404, `no sync job ${JSON.stringify(jobId)} (the service keeps the last 100)`, 'sync_job_not_found');
}
