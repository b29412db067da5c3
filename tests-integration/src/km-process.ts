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

/** How long a started process may take to say it is ready before it is killed and the start fails. */
export const READY_TIMEOUT_MS = 60_000;
/** How long {@link stopProcess} waits after SIGTERM before it sends SIGKILL. */
export const STOP_GRACE_MS = 10_000;
/** Characters of stderr quoted when a process did not become ready. */
const STDERR_TAIL = 2000;

/**
 * Resolves with what `isReady` finds in the child's stdout once it finds something. Rejects, with
 * the tail of the child's stderr, when the child exits first or is not ready within `timeoutMs`
 * (the child is then killed, so a hung start never outlives the test).
 */
export function whenReady<T>(
  child: ChildProcess,
  name: string,
  isReady: (stdout: string) => T | undefined,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const tail = () => (stderr.length > STDERR_TAIL ? `…${stderr.slice(-STDERR_TAIL)}` : stderr) || '(no stderr)';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} was not ready after ${timeoutMs} ms; killed. stderr: ${tail()}\nstdout: ${stdout.slice(-STDERR_TAIL)}`));
    }, timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = isReady(stdout);
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code ?? signal}; stderr: ${tail()}\nstdout: ${stdout.slice(-STDERR_TAIL)}`));
    });
  });
}

/**
 * Starts `km …` in its own process and resolves once its stdout contains `ready`; rejects (and
 * kills it) when it exits first or is not ready within `readyTimeoutMs`.
 */
export async function startKm(
  args: string[],
  ready: string,
  env: NodeJS.ProcessEnv,
  readyTimeoutMs = READY_TIMEOUT_MS,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [KM_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  await whenReady(child, `km ${args[0]}`, (stdout) => (stdout.includes(ready) ? true : undefined), readyTimeoutMs);
  return child;
}

/** Resolves with the exit code once the process has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );
}

/**
 * Asks the process to stop (SIGTERM) and, when it has not exited after `graceMs`, kills it
 * (SIGKILL). Resolves with the exit code: `null` when it had to be killed.
 */
export async function stopProcess(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exit = exited(child);
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), graceMs)));
  const first = await Promise.race([exit, graceOver]);
  clearTimeout(timer);
  if (first === 'grace over') child.kill('SIGKILL');
  return exit;
}

/** The environment of a km process on embedded defaults, whatever the caller's shell sets. */
export function kmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KM_LOG_LEVEL: 'warn',
    KM_EMBEDDINGS: '',
    OPENAI_API_KEY: '',
    KM_OPENAI_API_KEY: '',
    KM_OPENAI_BASE_URL: '',
    KM_ACCESS_KEY1: '',
    KM_ACCESS_KEY2: '',
    ...extra,
  };
}
