import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ReservedTags, folderSource, type MemoryServerless } from '../src/index.js';
import { allRecords, diskMemory, useTempDirs } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const child = join(here, 'fixtures', 'sync-folder-child.mjs');
const built = existsSync(join(here, '..', 'dist', 'index.js'));
const tempDir = useTempDirs('km-sync-kill-');

const FILES = 60;
const KILL_AFTER = 20;

/** Files long enough to make several partitions each. */
async function writeFolder(root: string): Promise<void> {
  for (let n = 0; n < FILES; n++) {
    await mkdir(join(root, `part-${n % 5}`), { recursive: true });
    const paragraphs = Array.from({ length: 12 }, (_, p) => `Paragraph ${p} of file ${n}: ${'words about topic '.repeat(40)}${n}-${p}.`);
    await writeFile(join(root, `part-${n % 5}`, `file-${n}.md`), `# File ${n}\n\n${paragraphs.join('\n\n')}\n`);
  }
}

/** Runs the child sync and kills it with SIGKILL after `killAfter` documents; resolves with the lines it printed. */
function runChildAndKill(data: string, root: string, killAfter: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, data, root], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (d) => {
      stderr += String(d);
    });
    createInterface({ input: proc.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === killAfter) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(lines);
      else reject(new Error(`the child sync ended (${code}) before it was killed after ${lines.length} lines: ${stderr}`));
    });
  });
}

/** Per document: its records' ids, sorted; and every record id must be unique. */
async function recordSets(memory: MemoryServerless): Promise<Map<string, string[]>> {
  const sets = new Map<string, string[]>();
  for (const db of memory.orchestrator.context.memoryDbs) {
    for (const record of await allRecords(db)) {
      const doc = record.tags[ReservedTags.documentId]![0]!;
      const list = sets.get(doc) ?? [];
      list.push(`${record.tags[ReservedTags.filePart]?.[0]}:${record.id}`);
      sets.set(doc, list);
    }
  }
  for (const list of sets.values()) list.sort();
  return sets;
}

if (!built) console.warn('sync-kill.test.ts skipped: needs the built package (pnpm --filter @km/core build)');

describe.skipIf(!built)('a sync killed with SIGKILL mid-way', () => {
  it('converges when run again: one document per file, one record set per document, as a clean sync', async () => {
    const dir = await tempDir();
    const root = join(dir, 'folder');
    await writeFolder(root);
    const data = join(dir, 'data');
    const printed = await runChildAndKill(data, root, KILL_AFTER);
    expect(printed.length).toBe(KILL_AFTER);
    expect(printed.some((l) => l.startsWith('done'))).toBe(false);

    // Run again at once (the dead process's lease is taken over), in this process.
    const memory = diskMemory(data);
    const source = folderSource({ root });
    const report = await memory.sync(source);
    expect(report).toMatchObject({ listed: FILES, failed: 0, deleted: 0, complete: true });
    expect(report.unchanged).toBeGreaterThanOrEqual(KILL_AFTER - 2);
    expect(report.added + report.updated + report.unchanged).toBe(FILES);

    const listed = await memory.listDocuments({ limit: 1000 });
    expect(listed.documents).toHaveLength(FILES);
    expect(listed.documents.every((d) => d.state === 'completed')).toBe(true);
    expect(new Set(listed.documents.map((d) => d.tags[ReservedTags.syncItem]![0])).size).toBe(FILES);

    const clean = diskMemory(join(dir, 'clean'));
    expect(await clean.sync(source)).toMatchObject({ added: FILES, failed: 0 });
    const after = await recordSets(memory);
    const expected = await recordSets(clean);
    expect(after.size).toBe(FILES);
    for (const [doc, records] of expected) {
      expect(new Set(records).size, doc).toBe(records.length);
      expect(records.length, `${doc}: several partitions`).toBeGreaterThan(1);
      expect(after.get(doc), doc).toEqual(records);
    }
    expect(await memory.sync(source)).toMatchObject({ unchanged: FILES });
  }, 120_000);
});
