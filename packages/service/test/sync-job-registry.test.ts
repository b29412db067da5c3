import { KmError, silentLogger, type SyncReport } from '@km/core';
import { describe, expect, it } from 'vitest';
import { SyncJobRegistry, type SyncRun } from '../src/sync/sync-job-registry.js';

const report = (overrides: Partial<SyncReport> = {}): SyncReport => ({
  source: 'folder:/x',
  kind: 'folder',
  index: 'default',
  listed: 1,
  added: 1,
  updated: 0,
  unchanged: 0,
  deleted: 0,
  failed: 0,
  failures: [],
  complete: true,
  startedAt: new Date().toISOString(),
  durationMs: 1,
  ...overrides,
});

const spec = (sourceId: string, run: SyncRun) => ({ index: 'default', source: { type: 'folder' as const, path: '/x' }, sourceId, run });

/** A run that waits for its signal, then returns an incomplete report, as the engine does when aborted. */
const untilAborted: SyncRun = (signal) =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(report({ complete: false }));
    signal.addEventListener('abort', () => resolve(report({ complete: false })), { once: true });
  });

describe('SyncJobRegistry', () => {
  it('keeps the newest finished jobs up to its capacity, and every running one', async () => {
    const jobs = new SyncJobRegistry({ capacity: 2, logger: silentLogger });
    const running = jobs.start(spec('running', untilAborted)).job;
    const done = [];
    for (const id of ['a', 'b', 'c']) {
      const { job } = jobs.start(spec(id, async () => report()));
      await jobs.begun(job.jobId, 1000);
      done.push(job.jobId);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    const kept = jobs.list().map((j) => j.sourceId);
    expect(kept).toContain('running');
    expect(kept).toContain('c');
    expect(kept).not.toContain('a');
    expect(jobs.get(running.jobId)?.status).toBe('running');
    await jobs.close();
    expect(jobs.get(running.jobId)?.status).toBe('cancelled');
  });

  it('records a run that throws as failed with its code, without an unhandled rejection; one already running for the source is returned instead', async () => {
    const jobs = new SyncJobRegistry({ logger: silentLogger });
    const first = jobs.start(spec('s', untilAborted));
    const second = jobs.start(spec('s', async () => report()));
    expect(second).toMatchObject({ started: false, job: { jobId: first.job.jobId } });
    jobs.cancel(first.job.jobId);
    await jobs.close();

    const others = new SyncJobRegistry({ logger: silentLogger });
    const failing = others.start(
      spec('t', async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new KmError('upstream_error', 'the bucket is gone');
      }),
    ).job;
    // Past the wait for its beginning, the failure is the job's, not the request's.
    expect(await others.begun(failing.jobId, 1)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(others.get(failing.jobId)).toMatchObject({ status: 'failed', errorCode: 'upstream_error', error: 'the bucket is gone' });
  });

  it('gives a failure before the sync began back to the caller, and forgets the job', async () => {
    const jobs = new SyncJobRegistry({ logger: silentLogger });
    const { job } = jobs.start(
      spec('u', async () => {
        throw new KmError('sync_busy', 'another sync holds the lease');
      }),
    );
    const refused = await jobs.begun(job.jobId, 1000);
    expect(refused?.error).toMatchObject({ code: 'sync_busy' });
    expect(jobs.get(job.jobId)).toBeUndefined();
  });

  it('fails a job whose listing did not complete, with the listing error', async () => {
    const jobs = new SyncJobRegistry({ logger: silentLogger });
    const { job } = jobs.start(
      spec('v', async () => report({ complete: false, failures: [{ itemId: '', error: '[km] the listing of source "v" failed: 404' }] })),
    );
    await jobs.begun(job.jobId, 1000);
    expect(jobs.get(job.jobId)).toMatchObject({ status: 'failed', error: 'the listing of source "v" failed: 404' });
  });
});
