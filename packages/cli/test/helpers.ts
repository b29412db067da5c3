import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runKm } from '../src/cli.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The environment the tests run `km` in: hashing embeddings, errors only, no service URL or key from the machine. */
export const ENV: NodeJS.ProcessEnv = { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' };

export interface KmRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** A stream that keeps what is written to it, as a pipe to a file would (not a terminal). */
class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * Runs km's commands with these arguments in this process, as the `km` program runs them
 * (`runKm`: the same parsing, output and exit codes), with `env` as its environment. What the
 * program itself adds (its process's exit code, signals, startup) is tested with {@link kmProcess}.
 */
export async function km(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<KmRun> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const code = await runKm(['node', 'km', ...args], { stdout, stderr, env });
  return { stdout: stdout.text, stderr: stderr.text, code };
}

/** Runs the built `km` program with these arguments; resolves with what it printed and its exit code, also when it fails. */
export async function kmProcess(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<KmRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
