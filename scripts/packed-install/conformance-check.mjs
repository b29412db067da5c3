// Step 7: a tiny connector (fixtures/map-memory-db.ts, a MemoryDbDriver over Maps) proves itself
// with the packed @km/conformance's describeMemoryDb, under vitest from the registry.
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mustRun, projectEnv } from './processes.mjs';
import { fail } from './transcript.mjs';

/** The connector's files, copied into the project (the example's tsc run type-checks them too). */
export const CONNECTOR_FILES = ['map-memory-db.ts', 'map-memory-db.test.ts'];

/**
 * Copies the connector into the project.
 * @param {string} project
 */
export async function writeConnector(project) {
  for (const file of CONNECTOR_FILES) await copyFile(new URL(`./fixtures/${file}`, import.meta.url), join(project, file));
}

/**
 * Runs the connector's conformance suite; fails unless vitest exits with 0 and ran some tests.
 * @param {string} project
 * @returns {Promise<string[]>}
 */
export async function checkConformance(project) {
  const vitest = join(project, 'node_modules', '.bin', 'vitest');
  const { stdout: version } = await mustRun(vitest, ['--version'], { cwd: project });
  // Generous per-test time: the suite polls reads after writes, and the machine may be busy.
  const { output } = await mustRun(vitest, ['run', 'map-memory-db.test.ts', '--testTimeout=60000', '--no-color'], {
    cwd: project,
    env: projectEnv({ NO_COLOR: '1', CI: '1' }),
    timeoutMs: 240_000,
  });
  const summary = output
    .split('\n')
    .filter((line) => /^\s*(Test Files|Tests)\s/.test(line))
    .map((line) => line.trim().replace(/\s+/g, ' '));
  if (!summary.some((line) => /\d+ passed/.test(line))) fail('the conformance run passed no test:', output);
  return [`describeMemoryDb('map') from the packed @km/conformance, ${version.trim()}: exit code 0`, ...summary];
}
