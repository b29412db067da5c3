import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CORE_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `script` (an ES module) in a bare Node process started in packages/core, so `@km/core`
 * resolves to the built package (dist/), with every ES module import of `gpt-tokenizer` refused
 * by a loader hook. The script prints the tokenizer files CommonJS has loaded (`require.cache`).
 */
function runWithTokenizerRefused(script: string): { status: number | null; stdout: string; stderr: string } {
  const hook = `export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    if (resolved.url.includes('/node_modules/gpt-tokenizer/')) throw new Error('gpt-tokenizer imported: ' + resolved.url);
    return resolved;
  }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const child = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
    {
      cwd: CORE_DIR,
      encoding: 'utf8',
    },
  );
  return { status: child.status, stdout: child.stdout.trim(), stderr: child.stderr };
}

const LIST_LOADED_TOKENIZER = `import { createRequire } from 'node:module';
const loadedTokenizer = () => Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/node_modules/gpt-tokenizer/'));`;

describe('import cost', () => {
  it('importing @km/core/connector or @km/core loads no tokenizer tables', () => {
    const child = runWithTokenizerRefused(`${LIST_LOADED_TOKENIZER}
await import('@km/core/connector');
await import('@km/core');
console.log(JSON.stringify(loadedTokenizer()));`);
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual([]);
  });

  it('the cl100k tables load on the first count, and the count is right', () => {
    const child = runWithTokenizerRefused(`${LIST_LOADED_TOKENIZER}
const { CL100KTokenizer } = await import('@km/core');
const tokenizer = new CL100KTokenizer();
const before = loadedTokenizer().length;
const count = tokenizer.countTokens('hello world');
console.log(JSON.stringify({ before, count, after: loadedTokenizer().some((file) => file.includes('cl100k_base')) }));`);
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ before: 0, count: 2, after: true });
  });
});
