import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The README's example (its first ```js block), as a user would save and run it. */
function readmeExample(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /^```js\n([\s\S]*?)\n```$/m.exec(readme);
  if (!block) throw new Error('README.md has no ```js block');
  return block[1]!;
}

describe('the README example', () => {
  it('runs against the built package and prints what its comments say', () => {
    const code = readmeExample();
    // `@km/collections` resolves to this package (its own name): dist/, as users get it.
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: PACKAGE_DIR, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const expected = [...code.matchAll(/^console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected).toHaveLength(3);
    expect(child.stdout.trim().split('\n')).toEqual(expected);
  });
});
