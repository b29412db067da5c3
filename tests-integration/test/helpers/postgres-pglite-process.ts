import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { READY_TIMEOUT_MS, whenReady } from '../../src/km-process.js';

const SCRIPT = fileURLToPath(new URL('./postgres-pglite-server.mjs', import.meta.url));

/** A PGlite database served over TCP by a child process, that a test can kill and start again on the same data. */
export interface PglitePostgresProcess {
  url: string;
  child: ChildProcess;
}

/**
 * Starts PGlite on `dataDir` in a new process listening on 127.0.0.1:`port`, and resolves once
 * it accepts connections. Starting it again on the same folder and port is a database restart.
 * Rejects with the tail of its stderr (and kills it) when it exits first or is not ready within
 * `readyTimeoutMs`.
 */
export async function startPglitePostgres(
  dataDir: string,
  port: number,
  readyTimeoutMs = READY_TIMEOUT_MS,
): Promise<PglitePostgresProcess> {
  const child = spawn(process.execPath, [SCRIPT, dataDir, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await whenReady(child, 'PGlite server', (stdout) => /ready (\S+)/.exec(stdout)?.[1], readyTimeoutMs);
  return { url, child };
}

/** Kills the process as a crash would (SIGKILL) and resolves once it is gone. */
export async function killPglitePostgres(db: PglitePostgresProcess): Promise<void> {
  if (db.child.exitCode !== null || db.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => db.child.once('exit', () => resolve()));
  db.child.kill('SIGKILL');
  await gone;
}
