// Steps 4 and 8: the @km/core README's example, as a user copies it: type-checked with a strict
// NodeNext tsconfig, compiled with tsc and run with node in the temporary project.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mustRun } from './processes.mjs';
import { fail } from './transcript.mjs';

/**
 * The first ```ts block of a README's "## Example" section, and the fact the example imports
 * (the first `importText('…')` string), which its output must show.
 * @param {string} readmePath
 * @returns {Promise<{ source: string, fact: string }>}
 */
export async function readmeExample(readmePath) {
  const readme = await readFile(readmePath, 'utf8');
  const section = /^## Example\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1];
  if (section === undefined) fail(`${readmePath} has no "## Example" section`);
  const source = /^```(?:ts|typescript)\s*\n([\s\S]*?)^```/m.exec(section)?.[1];
  if (source === undefined) fail(`the "## Example" section of ${readmePath} has no \`\`\`ts block`);
  const fact = /importText\(\s*(['"`])(.+?)\1/.exec(source)?.[2];
  if (fact === undefined) fail(`the example of ${readmePath} imports no text with importText('…'): which fact should it print?`);
  return { source, fact };
}

/** A strict NodeNext tsconfig, as a user's project on Node 20 has; libraries' declarations are checked too. */
function tsconfig(files) {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      skipLibCheck: false,
      outDir: 'out',
      rootDir: '.',
    },
    files,
  };
}

/**
 * Writes the example as `example.ts`, type-checks and compiles it (with `alsoCheck`: more of the
 * project's files, such as a connector), runs it, and checks that it prints the fact.
 * @param {string} project
 * @param {{ source: string, fact: string }} example
 * @param {string[]} [alsoCheck]
 * @returns {Promise<string[]>} the transcript's detail lines
 */
export async function checkExample(project, example, alsoCheck = []) {
  await writeFile(join(project, 'example.ts'), example.source);
  await writeFile(join(project, 'tsconfig.json'), `${JSON.stringify(tsconfig(['example.ts', ...alsoCheck]), null, 2)}\n`);
  const tsc = join(project, 'node_modules', '.bin', 'tsc');
  const { stdout: tscVersion } = await mustRun(tsc, ['--version'], { cwd: project });
  await mustRun(tsc, ['-p', 'tsconfig.json'], { cwd: project, timeoutMs: 180_000 });
  const { stdout } = await mustRun(process.execPath, [join('out', 'example.js')], { cwd: project, timeoutMs: 180_000 });
  if (!stdout.includes(example.fact)) fail(`the example did not print the fact "${example.fact}"; it printed:`, stdout);
  const lines = stdout.trimEnd().split('\n');
  return [
    `example.ts (${example.source.split('\n').length - 1} lines from packages/core/README.md) type-checks with ${tscVersion.trim()}, strict, NodeNext, skipLibCheck off${alsoCheck.length > 0 ? ` (with ${alsoCheck.join(', ')})` : ''}`,
    `node out/example.js printed the fact: ${lines.find((l) => l.includes(example.fact))?.trim()}`,
  ];
}
