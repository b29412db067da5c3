import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryFilters, ReservedTags, folderSource, syncDocumentId, type MemoryServerless, type SyncProgress } from '../src/index.js';
import { allRecords, diskMemory, useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-sync-folder-');

/** Text of file `n`: a few words of its own, so a search can tell files apart. */
function fileText(n: number, word = `marker${n}word`): string {
  return `# Note ${n}\n\nThis note is about ${word}. It mentions ${word} twice, and nothing else of note.\n`;
}

async function writeFiles(root: string, numbers: Iterable<number>, text: (n: number) => string = (n) => fileText(n)): Promise<void> {
  for (const n of numbers) {
    const dir = join(root, `group-${n % 7}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `note ${n}.md`), text(n));
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

async function searchDocuments(memory: MemoryServerless, query: string): Promise<string[]> {
  const result = await memory.search(query, { minRelevance: 0.3, limit: 10 });
  return result.results.map((c) => c.documentId);
}

describe('memory.sync with a folder source', () => {
  it('200 files synced; 10 edited, 5 deleted, 5 added: 15 ingested and 5 removed; then nothing to do', async () => {
    const dir = await tempDir();
    const root = join(dir, 'notes');
    await writeFiles(root, range(0, 200));
    const memory = diskMemory(join(dir, 'data'));
    const source = folderSource({ root });

    const first = await memory.sync(source);
    expect(first).toMatchObject({
      listed: 200,
      added: 200,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      failed: 0,
      complete: true,
      kind: 'folder',
    });
    expect(first.source).toBe(`folder:${root}`);

    // 10 edited (0..9), 5 deleted (10..14), 5 added (200..204).
    await writeFiles(root, range(0, 10), (n) => fileText(n, `edited${n}quasar`));
    for (const n of range(10, 15)) await rm(join(root, `group-${n % 7}`, `note ${n}.md`));
    await writeFiles(root, range(200, 205));

    const events: SyncProgress[] = [];
    const second = await memory.sync(source, { onProgress: (p) => events.push(p) });
    expect(second).toMatchObject({ listed: 200, added: 5, updated: 10, unchanged: 185, deleted: 5, failed: 0, complete: true });
    expect(second.added + second.updated).toBe(15);
    expect(
      events
        .filter((e) => e.action === 'updated')
        .map((e) => e.itemId)
        .sort(),
    ).toEqual(
      range(0, 10)
        .map((n) => `group-${n % 7}/note ${n}.md`)
        .sort(),
    );
    expect(events.at(-1)?.phase).toBe('done');

    const edited = syncDocumentId(source.id, 'group-3/note 3.md');
    expect(await searchDocuments(memory, 'edited3quasar')).toContain(edited);
    expect(await searchDocuments(memory, 'marker3word')).not.toContain(edited);
    const deleted = syncDocumentId(source.id, 'group-5/note 12.md');
    expect(await searchDocuments(memory, 'marker12word')).not.toContain(deleted);
    expect(await memory.getDocumentStatus(deleted)).toBeNull();
    expect(await searchDocuments(memory, 'marker202word')).toContain(syncDocumentId(source.id, 'group-6/note 202.md'));

    const third = await memory.sync(source);
    expect(third).toMatchObject({ listed: 200, added: 0, updated: 0, unchanged: 200, deleted: 0, failed: 0, complete: true });

    // The synced documents carry km's sync tags, and a filter on them works.
    const listed = await memory.listDocuments({ filters: [MemoryFilters.byTag(ReservedTags.syncItem, 'group-3/note 3.md')] });
    expect(listed.documents.map((d) => d.documentId)).toEqual([edited]);
    expect(listed.documents[0]!.tags[ReservedTags.syncSource]).toEqual([source.id]);
    expect(listed.documents[0]!.tags[ReservedTags.syncVersion]![0]).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a re-tagged synced document keeps its sync tags, so the next sync leaves it unchanged', async () => {
    const dir = await tempDir();
    const root = join(dir, 'notes');
    await writeFiles(root, range(0, 3));
    const memory = diskMemory(join(dir, 'data'));
    const source = folderSource({ root });
    await memory.sync(source);
    const id = syncDocumentId(source.id, 'group-1/note 1.md');
    const summary = await memory.updateDocumentTags(id, { team: ['docs'] });
    expect(summary.tags).toMatchObject({ team: ['docs'], [ReservedTags.syncItem]: ['group-1/note 1.md'] });
    const records = await allRecords(memory.orchestrator.context.memoryDbs[0]!);
    const own = records.filter((r) => r.tags[ReservedTags.documentId]![0] === id);
    expect(own.length).toBeGreaterThan(0);
    for (const r of own)
      expect(r.tags).toMatchObject({
        team: ['docs'],
        [ReservedTags.syncSource]: [source.id],
        [ReservedTags.syncItem]: ['group-1/note 1.md'],
      });
    const again = await memory.sync(source);
    expect(again).toMatchObject({ unchanged: 3, added: 0, updated: 0, deleted: 0 });
  });
});
