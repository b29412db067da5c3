// Import cost of @km/core: the resident memory (RSS) a bare Node process gains by importing
// `@km/core/connector` and `@km/core`, and by then counting one token (which loads the cl100k
// tables). Each case runs in a child process of its own, with a garbage collection before each
// reading; the median of 5 runs is printed, one line a case: `import-cost <case> <before> <after> <added> MB`.
//
//   pnpm --filter @km/bench bench:import-cost
//   pnpm --filter @km/bench bench:import-cost -- --core /tmp/km-before/packages/core   # another checkout's built core
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const RUNS = 5;
const args = process.argv.slice(2);
const coreOption = args.indexOf('--core');
const coreDir = coreOption >= 0 ? resolve(args[coreOption + 1]) : dirname(createRequire(import.meta.url).resolve('@km/core/package.json'));
const entry = (file) => pathToFileURL(join(coreDir, 'dist', file)).href;

const CASES = {
  'core/connector': `await import(${JSON.stringify(entry('connector.js'))});`,
  core: `await import(${JSON.stringify(entry('index.js'))});`,
  'core+countTokens': `const { CL100KTokenizer } = await import(${JSON.stringify(entry('index.js'))}); new CL100KTokenizer().countTokens('hello world');`,
};

/** RSS in MB before and after `work`, in a fresh process. */
function measure(work) {
  const script = `gc(); const before = process.memoryUsage().rss;
${work}
gc(); const after = process.memoryUsage().rss;
console.log(JSON.stringify([before / 2 ** 20, after / 2 ** 20]));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim());
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`# node ${process.version}, core at ${coreDir}, median of ${RUNS} runs`);
for (const [name, work] of Object.entries(CASES)) {
  const runs = Array.from({ length: RUNS }, () => measure(work));
  const before = median(runs.map(([b]) => b));
  const after = median(runs.map(([, a]) => a));
  const added = median(runs.map(([b, a]) => a - b));
  console.log(`import-cost ${name} ${before.toFixed(1)} ${after.toFixed(1)} ${added.toFixed(1)} MB`);
}
