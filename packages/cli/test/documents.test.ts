import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { km } from './helpers.js';

const KEY = 'cli-docs-key-'.padEnd(40, 'k');

interface Listed {
  index: string;
  documents: Array<{ documentId: string; state: string; tags: Record<string, Array<string | null>> }>;
  nextCursor: string | null;
}

let dir: string;
let shelf: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-docs-'));
  shelf = join(dir, 'shelf');
  await mkdir(shelf, { recursive: true });
  await writeFile(join(shelf, 'apples.txt'), 'Apples grow in orchards and are pressed into cider.');
  await writeFile(join(shelf, 'basalt.txt'), 'Basalt is a rock that forms when lava cools quickly.');
  await writeFile(join(shelf, 'comets.txt'), 'Comets have tails of gas and dust that point away from the Sun.');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km documents and km tags against a service URL', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'silent', auth: { enabled: true, keys: [KEY] } });
    const imported = await km(['import', shelf, '--index', 'shelf', '--tag', 'source:cli', '--wait', '--url', service.url, '--key', KEY]);
    expect(imported).toMatchObject({ code: 0, stdout: '3 of 3 documents ready\n' });
  });
  afterAll(() => service.dispose());

  const remote = () => ['--index', 'shelf', '--url', service.url, '--key', KEY];

  it('prints a table of the documents: id, state, tags, files, size, last change', async () => {
    const { stdout, code } = await km(['documents', ...remote()]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +STATE +TAGS +FILES +SIZE +UPDATED$/);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/).slice(0, 5))).toEqual([
      ['apples.txt', 'completed', 'source:cli', 'apples.txt', '51 B'],
      ['basalt.txt', 'completed', 'source:cli', 'basalt.txt', '52 B'],
      ['comets.txt', 'completed', 'source:cli', 'comets.txt', '63 B'],
    ]);
    expect(lines[1]).toMatch(/ \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(stdout).not.toContain('next page');
  });

  it('pages with --limit and --cursor, printing the next cursor; --all follows every cursor', async () => {
    const first = await km(['documents', '--limit', '2', ...remote()]);
    const cursor = /^next page: --cursor (\S+)$/m.exec(first.stdout)?.[1];
    expect(cursor).toBeDefined();
    expect(first.stdout).toMatch(/apples\.txt[\s\S]*basalt\.txt/);
    expect(first.stdout).not.toContain('comets.txt');
    const second = JSON.parse((await km(['documents', '--limit', '2', '--cursor', cursor!, '--json', ...remote()])).stdout) as Listed;
    expect(second.documents.map((d) => d.documentId)).toEqual(['comets.txt']);
    expect(second.nextCursor).toBeNull();
    const all = JSON.parse((await km(['documents', '--limit', '1', '--all', '--json', ...remote()])).stdout) as Listed;
    expect(all).toMatchObject({ index: 'shelf', nextCursor: null });
    expect(all.documents.map((d) => d.documentId)).toEqual(['apples.txt', 'basalt.txt', 'comets.txt']);
  });

  it('replaces tags with km tags; --tag, --filter and --state narrow the listing; search sees the new tags', async () => {
    const tagged = await km(['tags', 'basalt.txt', '--tag', 'kind:rock', '--tag', 'reviewed', ...remote()]);
    expect(tagged).toMatchObject({ code: 0, stdout: 'tags of basalt.txt replaced: kind:rock, reviewed\n' });
    const json = JSON.parse(
      (await km(['tags', 'comets.txt', '--tag', 'kind:space', '--json', ...remote()])).stdout,
    ) as Listed['documents'][0];
    expect(json).toMatchObject({ documentId: 'comets.txt', state: 'completed', tags: { kind: ['space'] } });

    const ids = async (...args: string[]) =>
      (JSON.parse((await km(['documents', ...args, '--json', ...remote()])).stdout) as Listed).documents.map((d) => d.documentId);
    expect(await ids('--tag', 'kind:rock')).toEqual(['basalt.txt']);
    expect(await ids('--tag', 'source:cli')).toEqual(['apples.txt']);
    expect(await ids('--filter', '[{"kind":["rock"]},{"kind":["space"]}]')).toEqual(['basalt.txt', 'comets.txt']);
    expect(await ids('--filter', '{"!kind":["rock"]}', '--tag', 'kind:space')).toEqual(['comets.txt']);
    expect(await ids('--state', 'completed')).toHaveLength(3);
    expect(await ids('--state', 'failed,in_progress')).toEqual([]);

    const search = await km(['search', 'lava rock', '--filter', 'kind:rock', '--json', ...remote()]);
    expect((JSON.parse(search.stdout) as { results: Array<{ documentId: string }> }).results.map((r) => r.documentId)).toEqual([
      'basalt.txt',
    ]);
  });

  it("lists a document's stored files with km documents files", async () => {
    const { stdout, code } = await km(['documents', 'files', 'apples.txt', ...remote()]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^NAME +TYPE +SIZE +FROM\napples\.txt +uploaded_file +51 B +-\n/);
    expect(stdout).toMatch(/text_partition +\d+ B +apples\.txt/);
    const missing = await km(['documents', 'files', 'nobody', ...remote()]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^km: .*404.*not found/);
  });

  it('reports bad input and unknown documents with their exit codes, on one line', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['documents', '--state', 'done'], 2, /"done" is not one of completed, in_progress, failed, deleting \(see km documents --help\)/],
      [['documents', '--limit', '0'], 2, /from 1 to 1000/],
      [['documents', '--filter', '{nope'], 2, /--filter is not JSON/],
      [['documents', '--cursor', 'not-a-cursor'], 2, /400.*cursor/],
      [['tags', 'apples.txt'], 2, /give the new tags with --tag key:value/],
      [['tags', 'apples.txt', '--tag', '__document_id:x'], 2, /reserved/],
      [['tags', 'nobody', '--tag', 'a:b'], 3, /not found/],
    ];
    for (const [args, code, message] of cases) {
      const result = await km([...args, ...remote()]);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr, args.join(' ')).toMatch(new RegExp(`^km: .*${message.source}`));
      expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

describe('km documents and km tags in local mode (no --url)', () => {
  it('list and retag the documents of a data folder in this process', async () => {
    const data = ['--data-dir', join(dir, 'local-data')];
    expect((await km(['import', join(shelf, 'apples.txt'), '--id', 'apples', '--tag', 'kind:fruit', ...data])).code).toBe(0);
    expect((await km(['documents', ...data])).stdout).toMatch(/^ID .*\napples +completed +kind:fruit +apples\.txt +51 B +/);
    expect((await km(['tags', 'apples', '--clear', ...data])).stdout).toBe('tags of apples replaced: -\n');
    const listed = JSON.parse((await km(['documents', '--json', ...data])).stdout) as Listed;
    expect(listed.documents).toEqual([expect.objectContaining({ documentId: 'apples', tags: {} })]);
    expect((await km(['documents', '--tag', 'kind:fruit', ...data])).stdout).toBe('(no documents)\n');
  });
});
