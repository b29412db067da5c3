import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isKmError } from '../src/errors/km-error.js';
import { RecordLog } from '@km/embedded-engine/record-log';
import type { Logger } from '../src/util/logger.js';
import { defineRecord } from '../src/vector-store/record-definition.js';
import { SimpleVectorStoreDriver } from '../src/vector-store/simple/simple-vector-store-driver.js';
import { failNextFileWriteHalfWay } from './helpers.js';
import { Hotel, hotels, oracleSearch, vectorQuery } from './vector-store-simple-fixtures.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'km-simple-vs-'));
  dirs.push(dir);
  return dir;
}

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Entries in a collection's log, read with the log's own reader. */
async function logEntries(folder: string): Promise<number> {
  return (await new RecordLog(folder, false).readFrom(0)).entries.length;
}

describe('SimpleVectorStoreDriver with a directory', () => {
  it('keeps records, deletes and the definition across a restart (vectors bit for bit, dates to the ms)', async () => {
    const directory = await tempDir();
    const records = hotels(50, 21);
    const first = new SimpleVectorStoreDriver({ directory });
    await first.createCollection('hotels', Hotel);
    await first.upsert('hotels', Hotel, records.slice(0, 30));
    await first.upsert('hotels', Hotel, records.slice(30));
    await first.delete('hotels', Hotel, ['h0003', 'h0040']);
    await first.close();

    const second = new SimpleVectorStoreDriver({ directory });
    expect(await second.listCollections()).toEqual(['hotels']);
    expect(await second.collectionExists('hotels')).toBe(true);
    const keys = records.map((r) => r.id as string);
    const back = await second.get('hotels', Hotel, keys, true);
    expect(back.map((r) => r.id).sort()).toEqual(keys.filter((k) => k !== 'h0003' && k !== 'h0040'));
    for (const record of back) {
      const source = records.find((r) => r.id === record.id)!;
      expect(record).toEqual(source); // Float32Array contents compared element by element, Dates by time
      expect(record.opened).toBeInstanceOf(Date);
      expect((record.opened as Date).getUTCMilliseconds()).toBe((source.opened as Date).getUTCMilliseconds());
      expect(Buffer.from((record.cos as Float32Array).buffer).equals(Buffer.from((source.cos as Float32Array).buffer))).toBe(true);
    }
    const live = records.filter((r) => r.id !== 'h0003' && r.id !== 'h0040');
    const vector = Float32Array.of(0.3, -0.7, 0.1, 0.9);
    const found = await second.search('hotels', Hotel, vectorQuery('euclidean', vector, 5));
    expect(found.map(([r]) => r.id)).toEqual(oracleSearch(live, 'euclidean', vector, 5).map(([id]) => id));
    await second.close();
  });

  it('persists vectors that float32 holds exactly only as float32 (what is read back is what a Float32Array holds)', async () => {
    const directory = await tempDir();
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    const [record] = hotels(1);
    await first.upsert('hotels', Hotel, [{ ...record!, cos: [0.1, 1 / 3, -2.5e-8, 123456.789] }]);
    await first.close();
    const second = new SimpleVectorStoreDriver({ directory });
    const [back] = await second.get('hotels', Hotel, ['h0000'], true);
    expect(back!.cos).toEqual(Float32Array.of(0.1, 1 / 3, -2.5e-8, 123456.789));
    await second.close();
  });

  it('writes definition.json without the generator and leaves no temporary file', async () => {
    const directory = await tempDir();
    const WithGenerator = defineRecord({
      key: 'id',
      data: { text: { type: 'string' } },
      vectors: { v: { dimensions: 2, embed: 'text' } },
      embeddingGenerator: { maxTokens: 10, countTokens: () => 1, generateEmbedding: async () => [1, 0] } as never,
    });
    const driver = new SimpleVectorStoreDriver({ directory });
    await driver.createCollection('docs', WithGenerator);
    const stored = JSON.parse(await readFile(join(directory, 'docs', 'definition.json'), 'utf8'));
    expect(stored).toEqual({
      format: 1,
      key: WithGenerator.key,
      data: WithGenerator.data,
      vectors: WithGenerator.vectors,
    });
    expect(await readdir(join(directory, 'docs'))).toEqual(['definition.json']);
    await driver.close();
  });

  it('drops a torn last entry (a crash mid-write), loads the rest, reports it, and writes on', async () => {
    const directory = await tempDir();
    const records = hotels(3, 4);
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    for (const record of records) await first.upsert('hotels', Hotel, [record]);
    await first.close();
    const log = join(directory, 'hotels', 'records.log');
    await truncate(log, (await stat(log)).size - 10);

    const logger = capture();
    const second = new SimpleVectorStoreDriver({ directory, durable: false, logger });
    const back = await second.get('hotels', Hotel, ['h0000', 'h0001', 'h0002'], true);
    expect(back.map((r) => r.id).sort()).toEqual(['h0000', 'h0001']);
    expect(back.find((r) => r.id === 'h0001')).toEqual(records[1]);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/collection "hotels": cut a torn log tail of \d+ bytes.*h0002/);
    await second.upsert('hotels', Hotel, [records[2]!]);
    await second.close();

    const third = new SimpleVectorStoreDriver({ directory, durable: false, logger });
    expect((await third.get('hotels', Hotel, ['h0000', 'h0001', 'h0002'], false)).map((r) => r.id).sort()).toEqual([
      'h0000',
      'h0001',
      'h0002',
    ]);
    expect(logger.warnings).toHaveLength(1);
    await third.close();
  });

  it('cuts the bytes a failed append left, so later writes are not lost behind a torn entry', async () => {
    const directory = await tempDir();
    const records = hotels(3, 6);
    const driver = new SimpleVectorStoreDriver({ directory, durable: false, logger: capture() });
    await driver.createCollection('hotels', Hotel);
    await driver.upsert('hotels', Hotel, [records[0]!]);
    // A write that fails half way (a full disk): part of an entry reaches the file, then an error.
    const write = await failNextFileWriteHalfWay(directory);
    await expect(driver.upsert('hotels', Hotel, [records[1]!])).rejects.toThrow(/ENOSPC/);
    write.mockRestore();
    expect(await driver.get('hotels', Hotel, ['h0001'], false)).toEqual([]);
    await driver.upsert('hotels', Hotel, [records[2]!]);
    await driver.close();

    const logger = capture();
    const again = new SimpleVectorStoreDriver({ directory, durable: false, logger });
    expect((await again.get('hotels', Hotel, ['h0000', 'h0001', 'h0002'], false)).map((r) => r.id).sort()).toEqual(['h0000', 'h0002']);
    expect(logger.warnings).toEqual([]);
    await again.close();
  });

  it('drops a last entry whose checksum fails (bytes changed), and garbage appended after it', async () => {
    const directory = await tempDir();
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    await first.upsert('hotels', Hotel, hotels(1));
    await first.upsert('hotels', Hotel, [{ ...hotels(2)[1]! }]);
    await first.close();
    const log = join(directory, 'hotels', 'records.log');
    const bytes = await readFile(log);
    bytes[bytes.length - 3]! ^= 0xff;
    await writeFile(log, bytes);
    await appendFile(log, Buffer.from('not an entry at all'));
    const second = new SimpleVectorStoreDriver({ directory, durable: false, logger: capture() });
    expect((await second.get('hotels', Hotel, ['h0000', 'h0001'], false)).map((r) => r.id)).toEqual(['h0000']);
    await second.close();
  });

  it('compacts the log on open when it holds more than twice the live records, keeping them', async () => {
    const directory = await tempDir();
    const records = hotels(10, 8);
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    for (let round = 0; round < 3; round++) await first.upsert('hotels', Hotel, records);
    await first.delete('hotels', Hotel, ['h0000', 'h0001']);
    await first.close();
    const folder = join(directory, 'hotels');
    expect(await logEntries(folder)).toBe(32);

    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    const back = await second.get(
      'hotels',
      Hotel,
      records.map((r) => r.id as string),
      true,
    );
    expect(await logEntries(folder)).toBe(8);
    expect(back.map((r) => r.id).sort()).toEqual(records.slice(2).map((r) => r.id));
    for (const record of back) expect(record).toEqual(records.find((r) => r.id === record.id));
    await second.upsert('hotels', Hotel, [records[0]!]);
    await second.close();

    const third = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(await third.get('hotels', Hotel, ['h0000', 'h0001'], false)).toHaveLength(1);
    expect(await logEntries(folder)).toBe(9); // 9 entries, 9 live: nothing to compact
    await third.close();
  });

  it('compacts while running once a thousand dead entries outnumber twice the live records', async () => {
    const directory = await tempDir();
    const records = hotels(600, 2);
    const driver = new SimpleVectorStoreDriver({ directory, durable: false });
    await driver.createCollection('hotels', Hotel);
    await driver.upsert('hotels', Hotel, records);
    await driver.upsert('hotels', Hotel, records);
    const folder = join(directory, 'hotels');
    expect(await logEntries(folder)).toBe(1200); // 600 dead: not yet
    await driver.delete(
      'hotels',
      Hotel,
      records.slice(0, 550).map((r) => r.id as string),
    );
    expect(await logEntries(folder)).toBe(50); // 1750 entries for 50 live records: rewritten
    await driver.upsert('hotels', Hotel, [records[0]!]);
    await driver.close();
    const again = new SimpleVectorStoreDriver({ directory, durable: false });
    const back = await again.get(
      'hotels',
      Hotel,
      records.map((r) => r.id as string),
      false,
    );
    expect(back.map((r) => r.id).sort()).toEqual([records[0]!.id, ...records.slice(550).map((r) => r.id)]);
    await again.close();
  });

  it('does not compact a log of mostly live records', async () => {
    const directory = await tempDir();
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    await first.upsert('hotels', Hotel, hotels(10));
    await first.upsert('hotels', Hotel, hotels(10)); // 20 entries, 10 live: not more than twice
    await first.close();
    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(await second.get('hotels', Hotel, ['h0009'], false)).toHaveLength(1);
    expect(await logEntries(join(directory, 'hotels'))).toBe(20);
    await second.close();
  });

  it('refuses, after a restart, a definition that differs in key type, dimensions, distance or property type', async () => {
    const directory = await tempDir();
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    const Base = { key: 'id', data: { n: { type: 'number' } }, vectors: { v: { dimensions: 3, distance: 'cosine' } } } as const;
    await first.createCollection('docs', defineRecord(Base));
    await first.close();

    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    const variants: Array<[ReturnType<typeof defineRecord>, RegExp]> = [
      [defineRecord({ ...Base, key: { name: 'id', type: 'integer' } }), /key "id" has type string, the definition asks for integer/],
      [defineRecord({ ...Base, vectors: { v: { dimensions: 4 } } }), /vector "v" has 3 dimensions, the definition asks for 4/],
      [
        defineRecord({ ...Base, vectors: { v: { dimensions: 3, distance: 'dot' } } }),
        /vector "v" uses distance cosine, the definition asks for dot/,
      ],
      [defineRecord({ ...Base, data: { n: { type: 'integer' } } }), /data property "n" has type number, the definition asks for integer/],
      [defineRecord({ ...Base, data: {} }), /data property "n" of the collection is not in the definition/],
    ];
    for (const [definition, message] of variants) {
      const error = await failure(second.createCollection('docs', definition));
      expect(isKmError(error, 'invalid_argument')).toBe(true);
      expect(String(error)).toMatch(message);
    }
    // Differences that do not change what is stored are accepted.
    await second.createCollection('docs', defineRecord({ ...Base, data: { n: { type: 'number', filterable: true, optional: true } } }));
    await second.close();
  });

  it('deletes a collection folder; the name can then hold another definition', async () => {
    const directory = await tempDir();
    const driver = new SimpleVectorStoreDriver({ directory, durable: false });
    await driver.createCollection('hotels', Hotel);
    await driver.upsert('hotels', Hotel, hotels(2));
    await driver.deleteCollection('hotels');
    expect(await readdir(directory)).toEqual([]);
    const Other = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 2 } } });
    await driver.createCollection('hotels', Other);
    await driver.upsert('hotels', Other, [{ n: 1, v: Float32Array.of(1, 2) }]);
    await driver.close();
    const again = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(await again.get('hotels', Other, [1], true)).toEqual([{ n: 1, v: Float32Array.of(1, 2) }]);
    await again.close();
  });

  it('treats a folder without definition.json as no collection, and starts it afresh on create', async () => {
    const directory = await tempDir();
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    await first.upsert('hotels', Hotel, hotels(3));
    await first.close();
    await rm(join(directory, 'hotels', 'definition.json')); // a deletion cut short
    await mkdir(join(directory, 'stray'));
    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(await second.listCollections()).toEqual([]);
    expect(await second.collectionExists('hotels')).toBe(false);
    await second.createCollection('hotels', Hotel);
    expect(await second.get('hotels', Hotel, ['h0000'], false)).toEqual([]);
    await second.close();
  });

  it('never lets a hostile collection name reach the file system', async () => {
    const root = await tempDir();
    const directory = join(root, 'store');
    const driver = new SimpleVectorStoreDriver({ directory, durable: false });
    const hostile = ['..', '../escape', 'a/b', '/tmp/x', '.hidden', 'a\\b', '', 'x'.repeat(129), 'a\u0000b', '_lead', 'naïve', 'C:'];
    for (const name of hostile) {
      const calls: Array<Promise<unknown>> = [
        driver.createCollection(name, Hotel),
        driver.collectionExists(name),
        driver.upsert(name, Hotel, hotels(1)),
        driver.get(name, Hotel, ['h0000'], false),
        driver.search(name, Hotel, vectorQuery('cosine', Float32Array.of(1, 0, 0, 0), 1)),
        driver.delete(name, Hotel, ['h0000']),
        driver.deleteCollection(name),
      ];
      for (const call of calls) expect(isKmError(await failure(call), 'invalid_argument'), JSON.stringify(name)).toBe(true);
    }
    expect(await readdir(root)).toEqual([]);
    await driver.close();
  });

  it('keeps every write of many concurrent upserts and deletes across a restart', async () => {
    const directory = await tempDir();
    const records = hotels(40, 13);
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('hotels', Hotel);
    await Promise.all([
      ...records.map((record) => first.upsert('hotels', Hotel, [record])),
      first.delete('hotels', Hotel, ['h0005', 'h0006']),
    ]);
    await first.close();
    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(
      await second.get(
        'hotels',
        Hotel,
        records.map((r) => r.id as string),
        false,
      ),
    ).toHaveLength(38);
    await second.close();
  });

  it('stores integer and uuid keys and string keys that need escaping', async () => {
    const directory = await tempDir();
    const Numbered = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 1 } } });
    const Ids = defineRecord({ key: { name: 'id', type: 'uuid' }, vectors: { v: { dimensions: 1 } } });
    const Texts = defineRecord({ key: 'k', vectors: { v: { dimensions: 1 } } });
    const uuid = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
    const odd = 'quote " backslash \\ newline \n emoji 😀';
    const first = new SimpleVectorStoreDriver({ directory, durable: false });
    await first.createCollection('numbered', Numbered);
    await first.createCollection('ids', Ids);
    await first.createCollection('texts', Texts);
    await first.upsert('numbered', Numbered, [
      { n: 0, v: [1] },
      { n: Number.MAX_SAFE_INTEGER, v: [2] },
    ]);
    await first.upsert('ids', Ids, [{ id: uuid, v: [3] }]);
    await first.upsert('texts', Texts, [{ k: odd, v: [4] }]);
    await first.delete('numbered', Numbered, [0]);
    await first.close();
    const second = new SimpleVectorStoreDriver({ directory, durable: false });
    expect(await second.get('numbered', Numbered, [0, Number.MAX_SAFE_INTEGER], true)).toEqual([
      { n: Number.MAX_SAFE_INTEGER, v: Float32Array.of(2) },
    ]);
    expect(await second.get('ids', Ids, [uuid], true)).toEqual([{ id: uuid, v: Float32Array.of(3) }]);
    expect(await second.get('texts', Texts, [odd], true)).toEqual([{ k: odd, v: Float32Array.of(4) }]);
    await second.close();
  });
});
