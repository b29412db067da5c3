import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BaseFile, mayHaveText, VectorIndex, type VectorIndexOptions, writeBaseFile } from '@km/embedded-engine';
import { isKmError, MemoryFilters, SimpleVectorDb, type MemoryFilter, type MemoryRecord } from '../src/index.js';
import { collect, useTempDirs } from './helpers.js';
import { seededUniform } from './seeded-uniform.js';

const tempDir = useTempDirs('km-base-');
const opened: SimpleVectorDb[] = [];
afterAll(async () => {
  for (const db of opened) await db.close().catch(() => undefined);
});

/** A SimpleVectorDb that checkpoints small indexes (every 200 log entries; 25 on close). */
const open = (directory: string, options: ConstructorParameters<typeof SimpleVectorDb>[0] = {}) => {
  const db = new SimpleVectorDb({ directory, durable: false, scanThreads: 0, checkpoint: { entries: 200 }, ...options });
  opened.push(db);
  return db;
};

const DIMS = 12;

/** Record i: a seeded vector, tags with a shared group, a unicode value and a null, text on odd records. */
function record(i: number, random: () => number, round = 0): MemoryRecord {
  return {
    id: i % 5 === 0 ? `ünï-${i}` : `r${i}`,
    vector: Float32Array.from({ length: DIMS }, random),
    tags: { g: [String(i % 7)], clé: [`vâl${i % 3}`, null], round: [String(round)] },
    payload: i % 2 ? { text: `word${i % 11} shared text ${i}`, n: i, round } : { n: i, round },
  };
}

/** Records `from..from + count)` (see {@link record}). */
function records(from: number, count: number, random: () => number): MemoryRecord[] {
  return Array.from({ length: count }, (_, i) => record(from + i, random));
}

/** Everything a reader sees of an index: count, listing, searches (plain, filtered, negated), lexical. */
async function snapshot(db: SimpleVectorDb, index: string, queries: Float32Array[]) {
  const filters: Array<MemoryFilter[] | undefined> = [
    undefined,
    [MemoryFilters.byTag('g', '3')],
    [MemoryFilters.byTag('clé', 'vâl1').byTag('g', '2'), MemoryFilters.byTag('g', '5')],
    [MemoryFilters.byTag('clé', null)],
    [MemoryFilters.notTag('g', '1')],
  ];
  const searches = [];
  for (const query of queries) {
    for (const f of filters) {
      const hits = await collect(db.getSimilarList(index, query, { limit: 7, minRelevance: -1, filters: f, withEmbeddings: true }));
      searches.push(hits.map(([r, s]) => [r.id, s, r.tags, r.payload, Array.from(r.vector)]));
    }
  }
  const lexical = await collect(db.getSimilarList(index, 'word3 shared', { mode: 'lexical', limit: 5 }));
  return {
    count: await db.count(index),
    list: (await collect(db.getList(index, { limit: 0 }))).map((r) => [r.id, r.tags, r.payload]),
    searches,
    lexical: lexical.map(([r, s]) => [r.id, s]),
  };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('SimpleVectorDb base file', () => {
  for (const quantization of ['int8', 'none'] as const) {
    it(`a reopened index reads its base file and answers as before (${quantization})`, async () => {
      const dir = await tempDir();
      const random = seededUniform(quantization === 'int8' ? 1 : 2);
      const db = open(dir, { quantization });
      const written = records(0, 500, random);
      for (let i = 0; i < 500; i += 100) await db.upsertBatch('docs', written.slice(i, i + 100));
      // Changes after the checkpoint (500 entries >= 200): overwrites and deletes of base records, new records.
      await db.upsert('docs', record(7, random, 1));
      await db.delete('docs', { id: 'r9' });
      await db.delete('docs', { id: 'ünï-10' });
      await db.upsertBatch('docs', [record(900, random, 1), record(10, random, 2)]);
      const queries = Array.from({ length: 4 }, () => Float32Array.from({ length: DIMS }, random));
      const before = await snapshot(db, 'docs', queries);
      await db.close();

      const folder = join(dir, 'docs');
      expect(await exists(join(folder, 'records.base'))).toBe(true);
      expect((await stat(join(folder, 'records.log'))).size).toBe(0); // folded on close (105 entries since the base of 400)
      expect(JSON.parse(await readFile(join(folder, 'index.json'), 'utf8'))).toMatchObject({ vectorSize: DIMS, format: 2 });
      const reopened = open(dir, { quantization });
      expect(await snapshot(reopened, 'docs', queries)).toEqual(before);
      expect(before.count).toBe(500);
    });
  }

  it('replays the log over the base: writes since the checkpoint survive a restart without close', async () => {
    const dir = await tempDir();
    const random = seededUniform(3);
    const db = open(dir);
    await db.upsertBatch('docs', records(0, 300, random));
    const folder = join(dir, 'docs');
    expect(await exists(join(folder, 'records.base'))).toBe(true);
    await db.upsert('docs', record(4, random, 1));
    await db.delete('docs', { id: 'r3' });
    await db.upsert('docs', record(3, random, 2)); // a deleted base id comes back
    await db.upsert('docs', record(301, random, 1));
    const queries = [Float32Array.from({ length: DIMS }, random)];
    const before = await snapshot(db, 'docs', queries);
    // A second process opens the folder as the first one left it (no close: no checkpoint).
    const other = open(dir);
    expect(await snapshot(other, 'docs', queries)).toEqual(before);
    expect((await stat(join(folder, 'records.log'))).size).toBeGreaterThan(0);
  });

  it('a crash between the new base and the emptied log loses nothing: the old log replays to the same records', async () => {
    const dir = await tempDir();
    const random = seededUniform(4);
    const folder = join(dir, 'docs');
    const db = open(dir);
    await db.upsertBatch('docs', records(0, 250, random)); // first base
    for (let i = 0; i < 70; i++) await db.upsert('docs', record(i, random, 1));
    await db.delete('docs', { id: 'r11' });
    await db.delete('docs', { id: 'r12' });
    await db.upsert('docs', record(12, random, 3));
    await copyFile(join(folder, 'records.log'), join(dir, 'old.log'));
    const queries = [Float32Array.from({ length: DIMS }, random)];
    const before = await snapshot(db, 'docs', queries);
    await db.close(); // 73 entries (over a quarter of the base): folded into a new base, log emptied
    expect((await stat(join(folder, 'records.log'))).size).toBe(0);
    // As if the process died after renaming the base, before emptying the log.
    await copyFile(join(dir, 'old.log'), join(folder, 'records.log'));
    expect(await snapshot(open(dir), 'docs', queries)).toEqual(before);
  });

  it('a reader follows the writer across checkpoints and does not write a base on close', async () => {
    const dir = await tempDir();
    const random = seededUniform(5);
    const writer = open(dir);
    const reader = open(dir);
    await writer.upsertBatch('docs', records(0, 50, random));
    expect(await reader.count('docs')).toBe(50);
    await writer.upsertBatch('docs', records(50, 200, random)); // checkpoint
    const baseTime = (await stat(join(dir, 'docs', 'records.base'))).mtimeMs;
    await writer.delete('docs', { id: 'r1' });
    await writer.upsert('docs', record(2, random, 1));
    const queries = [Float32Array.from({ length: DIMS }, random)];
    expect(await snapshot(reader, 'docs', queries)).toEqual(await snapshot(writer, 'docs', queries));
    await reader.close();
    expect((await stat(join(dir, 'docs', 'records.base'))).mtimeMs).toBe(baseTime);
    expect((await stat(join(dir, 'docs', 'records.log'))).size).toBeGreaterThan(0);
  });

  it('an index opened while its writer checkpoints reads a base and a log that belong together', async () => {
    const dir = await tempDir();
    const random = seededUniform(11);
    const writer = open(dir);
    await writer.upsertBatch('docs', records(0, 100, random));
    // The writer checkpoints just after the reader looked for the base file (none yet) and before
    // it reads the log: the log it would read is the emptied one, which alone holds nothing.
    const realOpen = BaseFile.open.bind(BaseFile);
    const spy = vi.spyOn(BaseFile, 'open').mockImplementationOnce(async (path) => {
      const found = await realOpen(path);
      await writer.upsertBatch('docs', records(100, 150, random)); // 250 entries: a checkpoint
      return found;
    });
    try {
      const reader = open(dir);
      expect(await reader.count('docs')).toBe(250);
      expect(spy).toHaveBeenCalledTimes(2); // read again once the log had changed under it
      await writer.upsert('docs', record(500, random));
      expect(await reader.count('docs')).toBe(251);
    } finally {
      spy.mockRestore();
    }
  });

  it('a failed checkpoint leaves the log as it was, is reported, and the write it followed stands', async () => {
    const dir = await tempDir();
    const random = seededUniform(6);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) };
    const db = open(dir, { logger });
    await db.upsert('docs', record(0, random));
    // The temporary base file's name taken by a folder: writing it fails, as on a full disk.
    await mkdir(join(dir, 'docs', 'records.base.tmp'));
    await db.upsertBatch('docs', records(1, 250, random));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/"docs" could not fold its log into a base file \(the log is intact\)/);
    expect(await exists(join(dir, 'docs', 'records.base'))).toBe(false);
    expect(await db.count('docs')).toBe(251);
    const queries = [Float32Array.from({ length: DIMS }, random)];
    expect(await snapshot(open(dir), 'docs', queries)).toEqual(await snapshot(db, 'docs', queries));
    // Writes do not try again at once (each try rewrites every record)...
    await db.upsertBatch('docs', records(300, 30, random));
    expect(warnings).toHaveLength(1);
    // ...closing does: once the disk has room again, the log is folded.
    await rm(join(dir, 'docs', 'records.base.tmp'), { recursive: true });
    const last = await snapshot(db, 'docs', queries);
    await db.close();
    expect(warnings).toHaveLength(1);
    expect(await exists(join(dir, 'docs', 'records.base'))).toBe(true);
    expect((await stat(join(dir, 'docs', 'records.log'))).size).toBe(0);
    expect(await snapshot(open(dir), 'docs', queries)).toEqual(last);
  });

  it('an index whose records were all deleted checkpoints to an empty base and reopens empty, then takes writes', async () => {
    const dir = await tempDir();
    const random = seededUniform(12);
    const db = open(dir);
    await db.upsertBatch('docs', records(0, 120, random));
    for (let i = 0; i < 120; i++) await db.delete('docs', { id: record(i, random).id });
    await db.close(); // the deletes since the last checkpoint are folded on close: a base of no record
    expect((await stat(join(dir, 'docs', 'records.log'))).size).toBe(0);
    const base = (await BaseFile.open(join(dir, 'docs', 'records.base')))!;
    expect(base.header.count).toBe(0);
    await base.close();
    const reopened = open(dir);
    expect(await reopened.count('docs')).toBe(0);
    expect(await collect(reopened.getList('docs'))).toEqual([]);
    await reopened.upsert('docs', record(3, random));
    expect((await collect(reopened.getList('docs'))).map((r) => r.id)).toEqual(['r3']);
  });

  it('a damaged base file or an index.json from a newer version is a storage_corrupt error, not an empty index', async () => {
    const random = seededUniform(7);
    const make = async () => {
      const dir = await tempDir();
      const db = open(dir);
      await db.upsertBatch('docs', records(0, 220, random));
      await db.close();
      return dir;
    };
    const damaged = await make();
    const basePath = join(damaged, 'docs', 'records.base');
    const bytes = await readFile(basePath);
    const ids = (await BaseFile.open(basePath))!;
    const [idsAt] = ids.header.sections['ids.bytes']!;
    await ids.close();
    bytes[idsAt + 3] = bytes[idsAt + 3]! ^ 0x20; // one id's byte
    await writeFile(basePath, bytes);
    await expect(open(damaged).count('docs')).rejects.toMatchObject({ code: 'storage_corrupt', message: /ids\.bytes fails its checksum/ });

    const truncated = await make();
    const full = await readFile(join(truncated, 'docs', 'records.base'));
    await writeFile(join(truncated, 'docs', 'records.base'), full.subarray(0, full.length - 10));
    await expect(open(truncated).count('docs')).rejects.toMatchObject({ code: 'storage_corrupt' });

    const badScale = await make();
    const scalePath = join(badScale, 'docs', 'records.base');
    const withCodes = await readFile(scalePath);
    const file = (await BaseFile.open(scalePath))!;
    const [codesAt] = file.header.sections.codes!;
    const codeBytes = file.header.codes!.rowBytes - 16;
    await file.close();
    withCodes.writeFloatLE(Number.NaN, codesAt + codeBytes); // the first code row's scale (an unchecked section)
    await writeFile(scalePath, withCodes);
    await expect(open(badScale).count('docs')).rejects.toMatchObject({ code: 'storage_corrupt', message: /code row 0 has scale NaN/ });

    const newer = await make();
    await writeFile(join(newer, 'docs', 'index.json'), JSON.stringify({ vectorSize: DIMS, format: 3 }));
    await expect(open(newer).count('docs')).rejects.toMatchObject({ code: 'storage_corrupt', message: /newer version/ });

    // The engine's errors reach callers as core's KmErrors naming the store, on every path that opens the index.
    const paths: Record<string, (db: SimpleVectorDb) => Promise<unknown>> = {
      count: (db) => db.count('docs'),
      getList: (db) => collect(db.getList('docs')),
      getSimilarList: (db) => collect(db.getSimilarList('docs', record(0, random).vector, { limit: 3, minRelevance: -1 })),
      upsert: (db) => db.upsert('docs', record(500, random)),
      delete: (db) => db.delete('docs', { id: 'r1' }),
    };
    for (const [name, call] of Object.entries(paths)) {
      const error = await call(open(damaged)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isKmError(error), name).toBe(true);
      expect(error, name).toMatchObject({ code: 'storage_corrupt', connector: 'simple-vector-db' });
    }
  });

  it('an HNSW graph saved beside a base file loads back onto the base records', async () => {
    const dir = await tempDir();
    const random = seededUniform(8);
    const hnsw = { minRecords: 100, exactBelow: 10 };
    const db = open(dir, { hnsw });
    await db.upsertBatch('docs', records(0, 400, random));
    await db.vectorIndex('docs')!.annIdle();
    const queries = Array.from({ length: 3 }, () => Float32Array.from({ length: DIMS }, random));
    const before = await snapshot(db, 'docs', queries);
    await db.close();
    const reopened = open(dir, { hnsw });
    expect(await reopened.count('docs')).toBe(400);
    const index = reopened.vectorIndex('docs')!;
    await index.annIdle();
    expect(index.annCounts.loaded).toBe(400); // every node found again by id and vector
    expect(index.annCounts.inserted).toBe(0);
    expect(await snapshot(reopened, 'docs', queries)).toEqual(before);
  });
});

describe('VectorIndex.loadBase', () => {
  /** Applies the same writes to two indexes. */
  const both = (a: VectorIndex, b: VectorIndex, write: (index: VectorIndex) => void) => {
    write(a);
    write(b);
  };

  async function results(index: VectorIndex, queries: Float32Array[]) {
    const filters: Array<MemoryFilter[] | undefined> = [undefined, [MemoryFilters.byTag('g', '2')], [MemoryFilters.notTag('g', '4')]];
    const out = [];
    for (const query of queries) {
      for (const f of filters) {
        const hits = await index.search(query, { limit: 9, minRelevance: -1, filters: f, withVectors: true });
        out.push(hits.map(([h, s]) => [h.id, s, h.tags, h.payloadJson, Array.from(h.vector!)]));
      }
    }
    out.push(index.list([MemoryFilters.byTag('g', '1')], 0).map((e) => [e.id, e.tags, e.payloadJson]));
    out.push(index.size);
    return out;
  }

  for (const [label, options, codes] of [
    ['float32, several segments', { segmentRows: 64 }, true],
    ['int8 codes read from the file', { segmentRows: 64, quantization: 'int8' }, true],
    ['int8 codes encoded again (codes of another layout)', { segmentRows: 64, quantization: 'int8' }, false],
  ] as Array<[string, VectorIndexOptions, boolean]>) {
    it(`holds what it was written from, and takes later writes as the index it came from (${label})`, async () => {
      const dir = await tempDir();
      const random = seededUniform(9);
      const source = new VectorIndex(DIMS, options);
      for (let i = 0; i < 300; i++) {
        const v = Float32Array.from({ length: DIMS }, random);
        source.upsert(`id-${i}`, v, { g: [String(i % 5)] }, JSON.stringify({ n: i }));
      }
      for (let i = 0; i < 300; i += 7) source.delete(`id-${i}`); // rows moved by swap-remove
      source.upsert('id-1', Float32Array.from({ length: DIMS }, random), { g: ['2'] }, '{"n":"new"}');
      const path = join(dir, 'records.base');
      await writeBaseFile(path, source.baseSource(mayHaveText));

      const loaded = new VectorIndex(DIMS, options);
      const file = (await BaseFile.open(path))!;
      const { base, postings } = await file.readColumns();
      const header = file.header;
      const read = (from: number, into: Uint8Array) => file.readRegion('codes', from, into);
      const readCodes = vi.fn(read);
      await loaded.loadBase(base, postings, {
        rowBytes: header.rowBytes,
        readRows: (from, into) => file.readRegion('rows', from, into),
        // Codes of another layout (as a later encoding could have) are not read but encoded again.
        codes: header.codes && { rowBytes: codes ? header.codes.rowBytes : header.codes.rowBytes + 16, read: readCodes },
      });
      if (options.quantization === 'int8') expect(readCodes).toHaveBeenCalledTimes(codes ? 5 : 0); // one call per segment (257 rows, 64 a segment)
      await file.close();
      const queries = Array.from({ length: 5 }, () => Float32Array.from({ length: DIMS }, random));
      expect(await results(loaded, queries)).toEqual(await results(source, queries));

      // Overwrite, delete (freeing base slots, moving rows), re-add a deleted base id, add new ids into freed slots.
      both(source, loaded, (index) => {
        const r = seededUniform(10);
        for (let i = 1; i < 300; i += 11) index.upsert(`id-${i}`, Float32Array.from({ length: DIMS }, r), { g: ['4'] }, '{"over":1}');
        for (let i = 2; i < 300; i += 5) index.delete(`id-${i}`);
        index.upsert('id-2', Float32Array.from({ length: DIMS }, r), { g: ['1'] }, '{"back":1}');
        for (let i = 0; i < 40; i++) index.upsert(`new-${i}`, Float32Array.from({ length: DIMS }, r), { g: [String(i % 5)] }, '{}');
        index.delete('new-3');
      });
      expect(await results(loaded, queries)).toEqual(await results(source, queries));
      expect(loaded.has('id-7')).toBe(false);
      expect(loaded.has('id-2')).toBe(true);
      expect(loaded.entry('id-2')!.payloadJson).toBe('{"back":1}');
    });
  }
});
