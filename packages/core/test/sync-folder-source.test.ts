import { createHash } from 'node:crypto';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { folderSource, isKmError, syncDocumentId, type FolderSourceOptions } from '../src/index.js';
import { collect, inMemory, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-folder-source-');

/** Writes `files` (relative path → content) under a new folder and returns it. */
async function folderWith(files: Record<string, string>): Promise<string> {
  const root = join(await tempDir(), 'root');
  await mkdir(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

async function listedIds(options: FolderSourceOptions): Promise<string[]> {
  return (await collect(folderSource(options).list())).map((item) => item.id).sort();
}

describe('folderSource', () => {
  it('lists every file with its relative path, content hash and name; skips .git', async () => {
    const root = await folderWith({ 'a.md': 'alpha', 'sub/b.txt': 'bravo', 'sub/deeper/c.json': '{}', '.git/config': 'x', '.hidden': 'h' });
    const source = folderSource({ root });
    expect(source).toMatchObject({ id: `folder:${root}`, kind: 'folder' });
    const items = await collect(source.list());
    expect(items.map((i) => i.id)).toEqual(['.hidden', 'a.md', 'sub/b.txt', 'sub/deeper/c.json']);
    const b = items.find((i) => i.id === 'sub/b.txt')!;
    expect(b.fileName).toBe('b.txt');
    expect(b.version).toBe(`sha256:${createHash('sha256').update('bravo').digest('hex')}`);
    expect(Buffer.from((await b.open()) as Uint8Array).toString()).toBe('bravo');
    expect(folderSource({ root, id: 'mine' }).id).toBe('mine');
  });

  it('include and exclude globs', async () => {
    const root = await folderWith({ 'a.md': '1', 'b.txt': '2', 'docs/c.md': '3', 'docs/drafts/d.md': '4', 'node_modules/x/e.md': '5' });
    expect(await listedIds({ root, include: ['**/*.md'] })).toEqual(['a.md', 'docs/c.md', 'docs/drafts/d.md', 'node_modules/x/e.md']);
    expect(await listedIds({ root, include: ['**/*.md'], exclude: ['docs/drafts/**', 'node_modules/**'] })).toEqual(['a.md', 'docs/c.md']);
    expect(await listedIds({ root, exclude: ['*.txt'] })).not.toContain('b.txt');
  });

  it('.gitignore and .kmignore rules apply to their folder and below, the deepest deciding', async () => {
    const root = await folderWith({
      '.gitignore': 'node_modules/\n*.log\n',
      '.kmignore': 'secret.md\n',
      'a.md': '1',
      'debug.log': '2',
      'secret.md': '3',
      'node_modules/x/e.md': '4',
      'sub/.gitignore': '!keep.log\nlocal-only.md\n',
      'sub/keep.log': '5',
      'sub/other.log': '6',
      'sub/local-only.md': '7',
      'local-only.md': '8',
    });
    expect(await listedIds({ root })).toEqual(['.gitignore', '.kmignore', 'a.md', 'local-only.md', 'sub/.gitignore', 'sub/keep.log']);
    // Without ignore files, everything (but .git).
    expect(await listedIds({ root, ignoreFiles: [] })).toHaveLength(11);
  });

  it('does not follow symbolic links unless asked, and never out of the root', async () => {
    const outside = await folderWith({ 'outside.md': 'o' });
    const root = await folderWith({ 'real/a.md': 'a' });
    await symlink(join(root, 'real'), join(root, 'link'));
    await symlink(outside, join(root, 'escape'));
    await symlink(join(root, 'real', 'a.md'), join(root, 'a-link.md'));
    expect(await listedIds({ root })).toEqual(['real/a.md']);
    expect(await listedIds({ root, followSymlinks: true })).toEqual(['a-link.md', 'link/a.md', 'real/a.md']);
  });

  it('a missing root is invalid_argument naming it, at creation and when listing', async () => {
    const missing = join(await tempDir(), 'nope');
    try {
      folderSource({ root: missing });
      expect.unreachable();
    } catch (e) {
      expect(isKmError(e, 'invalid_argument')).toBe(true);
      expect((e as Error).message).toContain(missing);
    }
    const root = await folderWith({ 'a.md': 'a' });
    const source = folderSource({ root });
    await rm(root, { recursive: true });
    await expect(collect(source.list())).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('a folder removed between syncs deletes nothing: the listing fails', async () => {
    const root = await folderWith({ 'a.md': 'alpha text', 'b.md': 'bravo text' });
    const { memory } = inMemory();
    const source = folderSource({ root });
    expect(await memory.sync(source)).toMatchObject({ added: 2 });
    await rm(root, { recursive: true });
    expect(await memory.sync(source)).toMatchObject({ complete: false, deleted: 0 });
    expect((await memory.listDocuments()).documents).toHaveLength(2);
  });

  it('a file over maxFileBytes is listed and fails to open; the others are synced', async () => {
    const root = await folderWith({ 'small.md': 'tiny', 'big.md': 'x'.repeat(2000) });
    const { memory } = inMemory();
    const report = await memory.sync(folderSource({ root, maxFileBytes: 1000 }));
    expect(report).toMatchObject({ added: 1, failed: 1 });
    expect(report.failures[0]).toMatchObject({ itemId: 'big.md', error: expect.stringContaining('over the limit') });
  });

  it('watch: an edit is picked up and synced within seconds', async () => {
    const root = await folderWith({ 'a.md': 'the original text about gardens', 'ignored.log': 'x', '.gitignore': '*.log\n' });
    const { memory } = inMemory();
    const source = folderSource({ root, watchDebounceMs: 100 });
    await memory.sync(source);
    let changes = 0;
    let syncing: Promise<unknown> = Promise.resolve();
    const stop = await source.watch!(() => {
      changes++;
      syncing = syncing.then(() => memory.sync(source));
    });
    try {
      await writeFile(join(root, 'ignored.log'), 'ignored change');
      await writeFile(join(root, 'a.md'), 'the edited text about xylophones');
      const id = syncDocumentId(source.id, 'a.md');
      await vi.waitFor(
        async () => {
          const found = await memory.search('xylophones', { minRelevance: 0.3 });
          expect(found.results.map((c) => c.documentId)).toContain(id);
        },
        { timeout: 20_000, interval: 200 },
      );
      expect(changes).toBeGreaterThan(0);
    } finally {
      await stop();
      await syncing;
    }
  });
});
