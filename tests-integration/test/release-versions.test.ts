import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAllPackages, checkPackageMetadata, coveredByFiles } from '../../scripts/check-package-metadata.mjs';
import { checkReleaseVersions, findUnintendedMajors, parseChangeset } from '../../scripts/check-release-versions.mjs';

// `pnpm check:release`: changesets must not turn a minor into an unplanned 1.0.0, and every
// published package must carry its npm metadata and a README with an example.

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async (prefix: string) => {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const writeJson = (path: string, value: unknown) => writeFile(path, `${JSON.stringify(value, null, 2)}\n`);

describe('findUnintendedMajors', () => {
  it('lists a package whose major goes up without a changeset naming it major', () => {
    const unintended = findUnintendedMajors({
      before: { '@x/core': '0.1.0', '@x/plugin': '0.1.0', '@x/tool': '1.2.0', '@x/cli': '0.3.1' },
      after: { '@x/core': '0.2.0', '@x/plugin': '1.0.0', '@x/tool': '2.0.0', '@x/cli': '0.3.2' },
      changesets: [
        {
          releases: [
            { name: '@x/core', type: 'minor' },
            { name: '@x/plugin', type: 'minor' },
          ],
        },
        { releases: [{ name: '@x/tool', type: 'major' }] },
      ],
    });
    expect(unintended).toEqual([{ name: '@x/plugin', from: '0.1.0', to: '1.0.0' }]);
  });

  it('accepts a 0.x minor and a major some changeset asks for', () => {
    expect(
      findUnintendedMajors({
        before: { a: '0.1.0', b: '0.9.0' },
        after: { a: '0.2.0', b: '1.0.0' },
        changesets: [{ releases: [{ name: 'b', type: 'major' }] }],
      }),
    ).toEqual([]);
  });
});

describe('parseChangeset', () => {
  it('reads single-, double- and unquoted names from the front matter only', () => {
    const text = `---\n"@km/core": minor\n'@km/cli': major\nplain: patch\n---\n\nBody mentioning "@km/x": major.\n`;
    expect(parseChangeset(text)).toEqual([
      { name: '@km/core', type: 'minor' },
      { name: '@km/cli', type: 'major' },
      { name: 'plain', type: 'patch' },
    ]);
  });

  it('refuses an unknown bump type', () => {
    expect(() => parseChangeset('---\n"@km/core": huge\n---\n')).toThrow(/unknown bump type "huge"/);
  });
});

/** A two-package workspace: a 0.1.0 core and a plugin with core as a peer. */
async function fixtureRepo(options: { peerRange: string; onlyOutOfRange: boolean; pluginBump: 'minor' | 'major' }) {
  const root = await tempDir('km-release-fixture-');
  await writeJson(join(root, 'package.json'), { name: 'fixture-root', private: true });
  await writeFile(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
  await mkdir(join(root, '.changeset'));
  await writeJson(join(root, '.changeset', 'config.json'), {
    changelog: false,
    commit: false,
    access: 'public',
    baseBranch: 'main',
    updateInternalDependencies: 'patch',
    ...(options.onlyOutOfRange
      ? { ___experimentalUnsafeOptions_WILL_CHANGE_IN_PATCH: { onlyUpdatePeerDependentsWhenOutOfRange: true } }
      : {}),
  });
  await writeFile(join(root, '.changeset', 'both.md'), `---\n"@fx/core": minor\n"@fx/plugin": ${options.pluginBump}\n---\n\nA change.\n`);
  for (const name of ['core', 'plugin']) await mkdir(join(root, 'packages', name), { recursive: true });
  await writeJson(join(root, 'packages', 'core', 'package.json'), { name: '@fx/core', version: '0.1.0' });
  await writeJson(join(root, 'packages', 'plugin', 'package.json'), {
    name: '@fx/plugin',
    version: '0.1.0',
    peerDependencies: { '@fx/core': options.peerRange },
  });
  return root;
}

describe('checkReleaseVersions (changeset version in a temporary copy)', () => {
  it('catches the 1.0.0 a workspace:^ peer on a 0.x package forces', async () => {
    const root = await fixtureRepo({ peerRange: 'workspace:^', onlyOutOfRange: false, pluginBump: 'minor' });
    const result = checkReleaseVersions(root);
    expect(result.after).toEqual({ '@fx/core': '0.2.0', '@fx/plugin': '1.0.0' });
    expect(result.unintended).toEqual([{ name: '@fx/plugin', from: '0.1.0', to: '1.0.0' }]);
  });

  it('does not report a major the changeset asks for', async () => {
    const root = await fixtureRepo({ peerRange: 'workspace:^', onlyOutOfRange: false, pluginBump: 'major' });
    const result = checkReleaseVersions(root);
    expect(result.after['@fx/plugin']).toBe('1.0.0');
    expect(result.unintended).toEqual([]);
  });

  it('keeps a minor a minor with workspace:^0 and onlyUpdatePeerDependentsWhenOutOfRange, the peer range untouched', async () => {
    const root = await fixtureRepo({ peerRange: 'workspace:^0', onlyOutOfRange: true, pluginBump: 'minor' });
    const result = checkReleaseVersions(root);
    expect(result.after).toEqual({ '@fx/core': '0.2.0', '@fx/plugin': '0.2.0' });
    expect(result.unintended).toEqual([]);
    expect(result.manifests['packages/plugin']?.peerDependencies).toEqual({ '@fx/core': 'workspace:^0' });
  });

  // On this repository's own pending changesets the check is `pnpm check:release` (12 s: `changeset
  // version` in a copy of the workspace), which CI runs before the tests.
});

/** A published package folder that passes every check; `change` edits it before writing. */
async function fixturePackage(change: (files: Record<string, string>, pkg: Record<string, unknown>) => void = () => {}) {
  const root = await tempDir('km-metadata-fixture-');
  const dir = join(root, 'packages', 'demo');
  const pkg: Record<string, unknown> = {
    name: '@km/demo',
    version: '0.1.0',
    description: 'demo',
    type: 'module',
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/km-memory/km.git', directory: 'packages/demo' },
    homepage: 'https://github.com/km-memory/km/tree/main/packages/demo#readme',
    bugs: { url: 'https://github.com/km-memory/km/issues' },
    publishConfig: { access: 'public', provenance: true },
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist', 'src', 'README.md'],
    engines: { node: '>=20.12' },
  };
  const files: Record<string, string> = {
    'README.md': '# @km/demo\n\n```ts\nimport { demo } from "@km/demo";\n```\n',
    'src/index.ts': 'export const demo = 1;\n',
    'dist/index.js': 'export const demo = 1;\n',
    'dist/index.d.ts': 'export declare const demo = 1;\n',
    'dist/index.js.map': JSON.stringify({ version: 3, file: 'index.js', sources: ['../src/index.ts'], mappings: 'AAAA' }),
  };
  change(files, pkg);
  await mkdir(dir, { recursive: true });
  await writeJson(join(dir, 'package.json'), pkg);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return { root, dir };
}

describe('checkPackageMetadata', () => {
  it('passes a complete package', async () => {
    const { dir } = await fixturePackage();
    expect(checkPackageMetadata(dir)).toEqual([]);
  });

  it('skips a private package', async () => {
    const { dir } = await fixturePackage((_, pkg) => {
      pkg.private = true;
      delete pkg.license;
    });
    expect(checkPackageMetadata(dir)).toBeUndefined();
  });

  it('names each missing or wrong field', async () => {
    const { dir } = await fixturePackage((_, pkg) => {
      delete pkg.license;
      delete pkg.homepage;
      delete pkg.bugs;
      delete pkg.engines;
      pkg.publishConfig = { access: 'public' };
      pkg.repository = { type: 'git', url: 'git+https://github.com/km-memory/km.git', directory: 'packages/other' };
      pkg.files = ['dist'];
    });
    expect(checkPackageMetadata(dir)).toEqual([
      'no "license"',
      '"repository.directory" is not "packages/demo"',
      'no "homepage" (https URL)',
      'no "bugs.url"',
      '"publishConfig.provenance" is not true',
      'no "engines.node"',
      '"files" lacks "README.md"',
      expect.stringMatching(/^source maps in dist name 1 source file\(s\) the package does not ship .*src\/index\.ts$/),
    ]);
  });

  it('fails a missing, empty or example-less README', async () => {
    const missing = await fixturePackage((files) => {
      delete files['README.md'];
    });
    expect(checkPackageMetadata(missing.dir)).toEqual(['README.md is missing']);
    const empty = await fixturePackage((files) => {
      files['README.md'] = '  \n';
    });
    expect(checkPackageMetadata(empty.dir)).toEqual(['README.md is empty']);
    const prose = await fixturePackage((files) => {
      files['README.md'] = '# @km/demo\n\nInstall it and call `demo()`.\n\n```\n```\n';
    });
    expect(checkPackageMetadata(prose.dir)).toEqual(['README.md has no code example (a fenced ``` block)']);
  });

  it('fails entry points outside "files" or absent after the build', async () => {
    const { dir } = await fixturePackage((_, pkg) => {
      pkg.exports = { '.': { types: './types/index.d.ts', import: './dist/index.js' } };
      pkg.types = './types/index.d.ts';
    });
    expect(checkPackageMetadata(dir)).toEqual([
      'entry point ./types/index.d.ts is not in "files"',
      'entry point ./types/index.d.ts does not exist after the build',
    ]);
  });

  it('reads "files" entries as folders or files', () => {
    expect(coveredByFiles(['dist', 'README.md'], './dist/a/b.js')).toBe(true);
    expect(coveredByFiles(['dist'], 'distx/a.js')).toBe(false);
    expect(coveredByFiles(['dist/'], 'src/a.ts')).toBe(false);
  });

  it('passes every published package of this repository', () => {
    const { checked, problems } = checkAllPackages(repoRoot);
    expect(checked).toContain('core');
    expect(problems).toEqual({});
  });
});
