// Child processes of the run: commands whose output is kept (and shown when they fail), and the
// environment they get.
import { spawn } from 'node:child_process';
import { fail } from './transcript.mjs';

/**
 * This process's environment for the tools run in the temporary projects, without what would
 * tie them to the workspace or change km's defaults: km's own settings (`KM_*`, e.g. a key or a
 * memory DB of the developer's) and what `pnpm run` adds (`npm_package_*`, `npm_lifecycle_*`,
 * `npm_config_user_agent`, `PNPM_SCRIPT_SRC_DIR`, `INIT_CWD`).
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string>}
 */
export function projectEnv(extra = {}) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(KM_|npm_package_|npm_lifecycle_)/.test(key)) continue;
    if (['npm_config_user_agent', 'PNPM_SCRIPT_SRC_DIR', 'INIT_CWD'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs a command to its end and returns its exit code and output (stdout and stderr, also
 * interleaved as `output`). A command still running after `timeoutMs` is killed and fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, output: string }>}
 */
export function run(command, args, { cwd, env = projectEnv(), timeoutMs = 300_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      output += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${commandLine(command, args)} did not finish within ${timeoutMs / 1000} s\n${tail(output)}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${commandLine(command, args)} could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, output });
    });
  });
}

/**
 * {@link run}, failing the step (with the output's last lines) unless the command exits with 0.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, timeoutMs?: number }} options
 */
export async function mustRun(command, args, options) {
  const result = await run(command, args, options);
  if (result.code !== 0) fail(`${commandLine(command, args)} exited with ${result.code} (in ${options.cwd})`, tail(result.output));
  return result;
}

/** The last `lines` lines of a command's output. */
export function tail(text, lines = 40) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function commandLine(command, args) {
  return [command, ...args].join(' ');
}
