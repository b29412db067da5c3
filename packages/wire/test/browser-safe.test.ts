import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
const builtins = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]!]));
/** Module names of static imports, re-exports and dynamic imports. */
const SPECIFIERS = /(?:\bimport\s*(?:[^'"()]*?\bfrom\s*)?|\bexport\s*[^'"]*?\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext))
    .map((f) => join(dir, f));
}

function specifiers(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIERS)].map((m) => m[1]!);
}

describe('@km/wire is browser-safe', () => {
  it('was built (run `pnpm build` first)', () => {
    expect(existsSync(join(dist, 'index.js'))).toBe(true);
  });

  it('imports no Node built-in and no package in its built files, only its own modules', () => {
    const built = [...files(dist, '.js'), ...files(dist, '.d.ts')];
    expect(built.length).toBeGreaterThan(0);
    const foreign = built.flatMap((file) =>
      specifiers(file)
        .filter((s) => !s.startsWith('./'))
        .map((s) => `${file.slice(root.length + 1)}: ${s}${s.startsWith('node:') || builtins.has(s) ? ' (Node built-in)' : ''}`),
    );
    expect(foreign).toEqual([]);
  });

  it('names no Node global in its built code', () => {
    const used = files(dist, '.js').flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(process|Buffer|require|__dirname|__filename|global)\b/g)].map((m) => `${file}: ${m[1]}`),
    );
    expect(used).toEqual([]);
  });

  it('has no dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });

  it('finds a Node import when there is one (the scan works)', () => {
    expect(specifiers(join(import.meta.dirname, 'browser-safe.test.ts'))).toEqual(
      expect.arrayContaining(['node:fs', 'node:module', 'vitest']),
    );
  });
});
