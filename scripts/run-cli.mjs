#!/usr/bin/env node
// `pnpm start` and `pnpm km …`: builds what the CLI needs (turbo, cached: only packages whose
// sources changed are built again), then runs `km` with the given arguments.
// - `--progress` (pnpm start): one line per package as its build starts, with how many are left;
// - otherwise (pnpm km): nothing but the command's own output.
// Turbo's own output is kept and printed only when the build fails.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const progress = args[0] === '--progress';
const cliArgs = progress ? args.slice(1) : args;
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', TURBO_NO_UPDATE_NOTIFIER: '1' };
const turbo = join(root, 'node_modules', '.bin', 'turbo');
const build = ['run', 'build', '--filter=@km/cli...', '--output-logs=hash-only', '--log-order=stream'];

/** Runs turbo, collecting its output; `onLine` sees each line as it comes. */
function runTurbo(turboArgs, onLine = () => {}) {
  return new Promise((resolve) => {
    const child = spawn(turbo, turboArgs, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let pending = '';
    const take = (chunk) => {
      const text = chunk.toString('utf8');
      output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ code: 1, output: `${output}\n${error.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function taskCount() {
  const { code, output } = await runTurbo(['run', 'build', '--filter=@km/cli...', '--dry=json']);
  if (code !== 0) return undefined;
  try {
    return JSON.parse(output.slice(output.indexOf('{'))).tasks.length;
  } catch {
    return undefined;
  }
}

const started = Date.now();
let total;
let seen = 0;
let built = 0;
if (progress) {
  total = await taskCount();
  process.stderr.write(`km: checking the build of ${total ?? 'the'} packages the service needs…\n`);
}
// `@km/core:build: cache miss, executing 1a2b…` (or `cache hit, replaying logs`) as each task starts.
const TASK = /^(@?[\w./-]+):build: cache (miss|hit|bypass)/;
const result = await runTurbo(build, (line) => {
  const task = TASK.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
  if (!task) return;
  seen++;
  if (task[2] !== 'hit') built++;
  if (progress && task[2] !== 'hit') process.stderr.write(`km: [${seen}/${total ?? '?'}] building ${task[1]}\n`);
});
if (result.code !== 0) {
  process.stderr.write(result.output);
  process.stderr.write(`\nkm: the build failed (turbo exited with ${result.code}); its output is above\n`);
  process.exit(result.code);
}
if (progress) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    built > 0 ? `km: built ${built} package(s) in ${seconds} s; starting\n` : `km: up to date (${seconds} s); starting\n`,
  );
}

const cli = spawn(process.execPath, [join(root, 'packages', 'cli', 'dist', 'bin.js'), ...cliArgs], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => cli.kill(signal));
cli.on('close', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
