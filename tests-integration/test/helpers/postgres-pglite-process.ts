import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./postgres-pglite-server.mjs', import.meta.url));

/** A PGlite database served over TCP by a child process, that a test can kill and start again on the same data. */
export interface PglitePostgresProcess {
  url: string;
  child: ChildProcess;
}

/**
 * Starts PGlite on `dataDir` in a new process listening on 127.0.0.1:`port`, and resolves once
 * it accepts connections. Starting it again on the same folder and port is a database restart.
 */
export function startPglitePostgres(dataDir: string, port: number): Promise<PglitePostgresProcess> {
  const child = spawn(process.execPath, [SCRIPT, dataDir, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /ready (\S+)/.exec(output);
      if (ready) resolve({ url: ready[1]!, child });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`PGlite server exited with ${code}: ${output}`)));
  });
}

/** Kills the process as a crash would (SIGKILL) and resolves once it is gone. */
export async function killPglitePostgres(db: PglitePostgresProcess): Promise<void> {
  if (db.child.exitCode !== null || db.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => db.child.once('exit', () => resolve()));
  db.child.kill('SIGKILL');
  await gone;
}
