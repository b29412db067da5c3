import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/** The `km` command of this repository (built). */
export const KM_BIN = join(dirname(createRequire(import.meta.url).resolve('@km/cli/package.json')), 'dist', 'bin.js');

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `km …` in its own process and resolves once its stdout contains `ready`. */
export function startKm(args: string[], ready: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [KM_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) resolve(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`km ${args[0]} exited with ${code}: ${output}`)));
  });
}

/** Resolves with the exit code once the process has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

/** The environment of a km process on embedded defaults, whatever the caller's shell sets. */
export function kmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, KM_LOG_LEVEL: 'warn', KM_EMBEDDINGS: '', OPENAI_API_KEY: '', KM_OPENAI_API_KEY: '', KM_OPENAI_BASE_URL: '', KM_ACCESS_KEY1: '', KM_ACCESS_KEY2: '', ...extra };
}
