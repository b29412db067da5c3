import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@km/conformance';
import pg from 'pg';
import { expect } from 'vitest';
import { freePort, kmEnv, startKm, stopProcess } from '../../src/km-process.js';
import { CLUSTER_WAIT_MS, ClusterOutageDatabase, type OutageDatabase, PgliteOutageDatabase } from './outage-database.js';

/** A document's status as `/upload-status` gives it. */
export interface Status {
  completed: boolean;
  failed?: boolean;
  error?: string;
}

/**
 * `km serve --no-handlers` and a `km worker`, both on PostgreSQL (holding the records and the
 * content storage, pipeline state included) and the file queue, with short retry delays so that
 * recovery after the outage is quick to observe. The database can be crashed and started again on
 * the same data: PGlite over TCP in its own process, or, with `KM_TEST_POSTGRES_OUTAGE_CLUSTER` and
 * `KM_TEST_POSTGRES_OUTAGE_URL`, a real PostgreSQL cluster stopped with `pg_ctlcluster --mode immediate`.
 */
export class OutageScenario {
  url = '';
  private folder = '';
  private database: OutageDatabase | undefined;
  private readonly km: ChildProcess[] = [];
  workerLog = '';

  /** The database the scenario will use, for test names. */
  static databaseName(): string {
    return ClusterOutageDatabase.fromEnvironment()?.name ?? 'PGlite over TCP';
  }

  /** A test's timeout: `ms`, plus the wait for its turn on a real cluster (other suites crash it too). */
  static timeout(ms: number): number {
    return ms + (ClusterOutageDatabase.fromEnvironment() ? CLUSTER_WAIT_MS : 0);
  }

  async start(queue: Record<string, number>): Promise<void> {
    this.folder = await mkdtemp(join(tmpdir(), 'km-pg-outage-'));
    this.database = ClusterOutageDatabase.fromEnvironment() ?? new PgliteOutageDatabase(this.folder);
    await this.database.start();
    const configFile = join(this.folder, 'km.json');
    await writeFile(configFile, JSON.stringify({ queue: { retryDelayMs: 250, maxRetryDelayMs: 4000, ...queue } }));
    const env = kmEnv({
      KM_EMBEDDINGS: 'hashing',
      KM_MEMORY_DB: 'postgres',
      KM_CONTENT_STORAGE: 'postgres',
      KM_POSTGRES_URL: this.database.url,
      KM_LOG_LEVEL: 'error',
    });
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const dataDir = join(this.folder, 'km');
    const args = ['--data-dir', dataDir, '--config', configFile];
    this.km.push(await startKm(['serve', '--port', String(port), ...args, '--no-handlers'], 'listening on', env));
    const worker = await startKm(['worker', ...args], 'km worker running', { ...env, KM_LOG_LEVEL: 'warn' });
    worker.stdout!.on('data', (chunk: Buffer) => (this.workerLog += chunk.toString()));
    this.km.push(worker);
  }

  /** Takes the database down as a crash would. */
  async stopDatabase(): Promise<void> {
    await this.database?.crash();
  }

  async startDatabase(): Promise<void> {
    await this.database?.restart();
  }

  async upload(documentId: string, text: string): Promise<number> {
    const form = new FormData();
    form.append('documentId', documentId);
    form.append('file1', new Blob([text], { type: 'text/plain' }), `${documentId}.txt`);
    return (await fetch(`${this.url}/upload`, { method: 'POST', body: form })).status;
  }

  async status(documentId: string): Promise<Status | undefined> {
    const res = await fetch(`${this.url}/upload-status?documentId=${documentId}`);
    return res.ok ? ((await res.json()) as Status) : undefined;
  }

  /** Records of each document in the memory DB's table (`km-default`). */
  async recordsPerDocument(): Promise<Map<string, number>> {
    const client = new pg.Client({ connectionString: this.database!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ document: string; n: string }>(
        `SELECT substring(t from '^__document_id:(.*)$') AS document, count(*) AS n FROM "km-default", unnest(tags) AS t
         WHERE t LIKE '__document_id:%' GROUP BY 1`,
      );
      return new Map(rows.map((r) => [r.document, Number(r.n)]));
    } finally {
      await client.end();
    }
  }

  /**
   * Waits until every document of `DOCUMENTS` is completed (none failed), then checks that each
   * has exactly one record set in the memory DB.
   */
  async expectAllCompletedOnce(timeoutMs: number): Promise<void> {
    await eventually(
      async () => {
        const statuses = await Promise.all(DOCUMENTS.map(([id]) => this.status(id!)));
        expect(statuses.filter((s) => s?.completed && !s.failed)).toHaveLength(DOCUMENTS.length);
      },
      timeoutMs,
      1000,
    );
    const records = await this.recordsPerDocument();
    expect(DOCUMENTS.map(([id]) => records.get(id!))).toEqual(DOCUMENTS.map(() => 1));
  }

  /** Whether both km processes are still running. */
  alive(): boolean {
    return this.km.every((child) => child.exitCode === null && child.signalCode === null);
  }

  async stop(): Promise<void> {
    for (const child of this.km) await stopProcess(child);
    await this.database?.dispose();
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
  }
}

/** Fifty short documents, each one partition. */
export const DOCUMENTS = Array.from({ length: 50 }, (_, i) => [
  `doc-${i}`,
  `Document ${i} is about the number ${i * 7} and its neighbours.`,
]);
