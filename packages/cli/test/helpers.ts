import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The environment the tests run `km` in: hashing embeddings, errors only, no service URL or key from the machine. */
const ENV = { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' };

/** Runs the built `km` with these arguments; resolves with what it printed and its exit code, also when it fails. */
export async function km(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}
