import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/km-process.js';
import { killPglitePostgres, startPglitePostgres, type PglitePostgresProcess } from './postgres-pglite-process.js';

const run = promisify(execFile);

/** A PostgreSQL database that a test can take down (as a crash would) and bring back on the same data. */
export interface OutageDatabase {
  /** What the database is, for test names. */
  readonly name: string;
  /** The URL km connects to (valid after `start`). */
  url: string;
  start(): Promise<void>;
  /** Takes the database down at once, without a clean shutdown. */
  crash(): Promise<void>;
  /** Brings it back on the same data. */
  restart(): Promise<void>;
  /** Removes what `start` created. */
  dispose(): Promise<void>;
}

/**
 * PGlite over TCP in a process of its own: killed with SIGKILL and started again on its folder.
 */
export class PgliteOutageDatabase implements OutageDatabase {
  readonly name = 'PGlite over TCP';
  url = '';
  private process: PglitePostgresProcess | undefined;
  private port = 0;

  constructor(private readonly folder: string) {}

  async start(): Promise<void> {
    this.port = await freePort();
    await this.restart();
  }

  async crash(): Promise<void> {
    if (this.process) await killPglitePostgres(this.process);
    this.process = undefined;
  }

  async restart(): Promise<void> {
    this.process = await startPglitePostgres(join(this.folder, 'pgdata'), this.port);
    this.url = this.process.url;
  }

  async dispose(): Promise<void> {
    await this.crash();
  }
}

/**
 * A real PostgreSQL cluster managed by Debian's `pg_ctlcluster` (as
 * `../shared/scripts/postgres-pgvector.sh` creates one), named by `KM_TEST_POSTGRES_OUTAGE_CLUSTER`
 * (`15/km5433`) with a superuser URL in `KM_TEST_POSTGRES_OUTAGE_URL`. Each scenario works in a
 * database of its own, created and dropped here; the outage is `stop -m immediate` (no checkpoint,
 * connections cut) and the cluster is started again. Other tests must not use this cluster meanwhile:
 * `.ci/run` gives these suites a cluster of their own (port 5434), and the suites that crash it take
 * turns (a lock folder in the temporary directory, held from `start` to `dispose`), as vitest may run
 * them in parallel workers. A test on a cluster allows {@link CLUSTER_WAIT_MS} more for its turn.
 */
export class ClusterOutageDatabase implements OutageDatabase {
  readonly name: string;
  url = '';
  private readonly database = `km_outage_${process.pid}_${Date.now().toString(36)}`;
  private unlock: (() => Promise<void>) | undefined;

  constructor(
    private readonly cluster: string,
    private readonly adminUrl: string,
  ) {
    this.name = `PostgreSQL cluster ${cluster}`;
  }

  static fromEnvironment(): ClusterOutageDatabase | undefined {
    const cluster = process.env.KM_TEST_POSTGRES_OUTAGE_CLUSTER;
    const url = process.env.KM_TEST_POSTGRES_OUTAGE_URL;
    return cluster && url ? new ClusterOutageDatabase(cluster, url) : undefined;
  }

  async start(): Promise<void> {
    this.unlock = await lockCluster(this.cluster);
    await this.admin(`CREATE DATABASE ${this.database}`);
    const url = new URL(this.adminUrl);
    url.pathname = `/${this.database}`;
    this.url = url.toString();
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    } finally {
      await client.end();
    }
  }

  async crash(): Promise<void> {
    await this.ctl(['--mode', 'immediate'], 'stop');
  }

  async restart(): Promise<void> {
    await this.ctl([], 'start');
  }

  async dispose(): Promise<void> {
    await this.restart().catch(() => undefined);
    await this.admin(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`).catch(() => undefined);
    await this.unlock?.();
    this.unlock = undefined;
  }

  private async ctl(options: string[], action: 'start' | 'stop'): Promise<void> {
    const [version, name] = this.cluster.split('/');
    await run('pg_ctlcluster', [...options, version!, name!, action], { timeout: 60_000 }).catch((error: { stderr?: string }) => {
      // Starting a running cluster, or stopping a stopped one, is not an error here.
      if (!/already running|is not running/.test(error.stderr ?? '')) throw error;
    });
  }

  private async admin(sql: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

/** How much longer a test on a cluster may take, waiting for another suite's turn on it (the longest holds it ~5 min). */
export const CLUSTER_WAIT_MS = 600_000;

/** Waits until no other live process holds the cluster, then holds it; returns the release. */
async function lockCluster(cluster: string): Promise<() => Promise<void>> {
  const folder = join(tmpdir(), `km-test-cluster-${cluster.replace(/\W/g, '-')}.lock`);
  const release = () => rm(folder, { recursive: true, force: true });
  for (;;) {
    try {
      await mkdir(folder);
      await writeFile(join(folder, 'pid'), String(process.pid));
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(join(folder, 'pid'), 'utf8').catch(() => ''));
      if (holder > 0 && !alive(holder))
        await release(); // left by a process that died
      else await sleep(500);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
