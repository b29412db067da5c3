import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordLog, type LogEntry } from '../src/record-log.js';
import { failNextFileWriteHalfWay } from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-record-log-'));
  dirs.push(d);
  return d;
};

/** An upsert whose vector holds `i` and whose payload is `filler` characters long. */
function upsert(i: number, dims: number, filler = 0): LogEntry {
  return {
    op: 'upsert',
    record: { id: `r${i}`, tags: { g: [String(i % 7)] }, payloadJson: JSON.stringify({ n: i, text: 'x'.repeat(filler) }) },
    vector: new Float32Array(dims).fill(i),
  };
}

/** What a test compares: id, op, first and last number of the vector, payload length. */
function summary(e: LogEntry): string {
  if (e.op === 'delete') return `-${e.id}`;
  return `${e.record.id}:${e.vector?.[0]}:${e.vector?.[e.vector.length - 1]}:${e.record.payloadJson.length}`;
}

describe('RecordLog streaming read', () => {
  // Entries of various sizes, some larger than the 4 MiB read chunk, so entries straddle chunk ends.
  const written: LogEntry[] = [];
  for (let i = 0; i < 2500; i++) written.push(upsert(i, 1000 + (i % 13), i % 5 === 0 ? 3000 : 10));
  written.push(upsert(2500, 384, 5 * 1024 * 1024)); // one entry larger than a chunk
  written.push({ op: 'delete', id: 'r3' });
  for (let i = 2501; i < 2600; i++) written.push(upsert(i, 1024));

  it('reads back every entry across chunk boundaries, in order, each vector its own (load)', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    await log.append(written.slice(0, 1000));
    await log.append(written.slice(1000));
    await log.close();
    const read = await new RecordLog(dir, false).load();
    expect(read.map(summary)).toEqual(written.map(summary));
    const vectors = read.flatMap((e) => (e.op === 'upsert' ? [e.vector] : []));
    expect(new Set(vectors.map((v) => v!.buffer)).size).toBe(vectors.length);
  });

  it('streams entries with loadEach and readEachFrom from an offset', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const first = await log.append(written.slice(0, 10));
    const { end } = await log.append(written.slice(10));
    await log.close();
    const seen: string[] = [];
    const loaded = await new RecordLog(dir, false).loadEach((e) => seen.push(summary(e)));
    expect(seen).toEqual(written.map(summary));
    expect(loaded).toMatchObject({ entries: written.length, end });
    const later: string[] = [];
    const from = await new RecordLog(dir, false).readEachFrom(first.end, (e) => later.push(summary(e)));
    expect(later).toEqual(written.slice(10).map(summary));
    expect(from).toMatchObject({ entries: written.length - 10, end });
  });

  it("rejects with the visitor's error while the next chunk is being read, and the log reads again afterwards", async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    await log.append(written);
    await log.close();
    // The visitor throws in the first chunk, while the read of the second is in flight.
    let visited = 0;
    const failing = new RecordLog(dir, false).loadEach(() => {
      if (++visited === 100) throw new Error('visitor failed');
    });
    await expect(failing).rejects.toThrow('visitor failed');
    expect(visited).toBe(100);
    const seen: string[] = [];
    await new RecordLog(dir, false).readEachFrom(0, (e) => seen.push(summary(e)));
    expect(seen).toEqual(written.map(summary));
  });

  it('cuts a torn tail after a large entry, and keeps what comes before', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const { end } = await log.append(written.slice(0, 2501));
    await log.append([upsert(9999, 1024)]);
    await log.close();
    const file = join(dir, 'records.log');
    const full = (await stat(file)).size;
    // A crash mid-write: the last entry loses its end, then a partial header follows.
    const { truncate } = await import('node:fs/promises');
    await truncate(file, full - 100);
    await appendFile(file, Buffer.from([1, 2, 3]));
    const reader = new RecordLog(dir, false);
    const read = await reader.load();
    expect(read.map(summary)).toEqual(written.slice(0, 2501).map(summary));
    expect(reader.lastCut).toEqual({ bytes: full - 100 + 3 - end, recordIds: ['r9999'] });
    expect((await stat(file)).size).toBe(end);
  });

  it('stops at a corrupt entry (checksum) in the middle of a chunk and cuts from there', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const { end } = await log.append(written.slice(0, 50));
    await log.append(written.slice(50, 60));
    await log.close();
    const file = join(dir, 'records.log');
    const { open } = await import('node:fs/promises');
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([0xff]), 0, 1, end + 200); // inside entry 51's vector
    await handle.close();
    const reader = new RecordLog(dir, false);
    expect((await reader.load()).map(summary)).toEqual(written.slice(0, 50).map(summary));
    expect(reader.lastCut?.recordIds).toEqual(written.slice(50, 60).map((e) => (e.op === 'upsert' ? e.record.id : e.id)));
    expect((await stat(file)).size).toBe(end);
  });

  it('reports every byte and record id it cuts when the corrupt entry is chunks before the end of the file', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const many: LogEntry[] = [];
    for (let i = 0; i < 3000; i++) many.push(upsert(i, 768));
    const { end } = await log.append(many.slice(0, 100));
    await log.append(many.slice(100));
    await log.close();
    const file = join(dir, 'records.log');
    const full = (await stat(file)).size;
    expect(full - end).toBeGreaterThan(2 * 4 * 1024 * 1024); // the cut spans more than one 4 MiB read chunk
    const { open } = await import('node:fs/promises');
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([0xff]), 0, 1, end + 200); // inside entry 101's vector, in the first chunk
    await handle.close();
    const reader = new RecordLog(dir, false);
    expect((await reader.load()).map(summary)).toEqual(many.slice(0, 100).map(summary));
    expect(reader.lastCut?.bytes).toBe(full - end);
    expect(reader.lastCut?.recordIds).toEqual(many.slice(100).map((e) => (e.op === 'upsert' ? e.record.id : e.id)));
    expect((await stat(file)).size).toBe(end);
  });

  it('salvages an id whose marker straddles the end of a 4 MiB read chunk of the cut', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const { end } = await log.append([upsert(0, 8), upsert(1, 8)]);
    // Entry 2 is sized so entry 3's `{"id":"` starts 3 bytes before the cut's first chunk ends.
    const jsonOf = (filler: number) => {
      const e = upsert(2, 768, filler);
      return e.op === 'upsert' ? `{"id":"r2","tags":${JSON.stringify(e.record.tags)},"payload":${e.record.payloadJson}}` : '';
    };
    const jsonLength = 4 * 1024 * 1024 - 3 - 13 - 13 - 768 * 4; // entry 3 starts at 4 MiB - 16, its JSON 13 bytes in
    const large = upsert(2, 768, jsonLength - Buffer.byteLength(jsonOf(0)));
    expect(Buffer.byteLength(jsonOf(jsonLength - Buffer.byteLength(jsonOf(0))))).toBe(jsonLength);
    await log.append([large, upsert(3, 8), upsert(4, 8)]);
    await log.close();
    const file = join(dir, 'records.log');
    const full = (await stat(file)).size;
    const { open } = await import('node:fs/promises');
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([0xff]), 0, 1, end + 13 + jsonLength + 10); // inside entry 2's vector
    await handle.close();
    const reader = new RecordLog(dir, false);
    expect((await reader.load()).map(summary)).toEqual([upsert(0, 8), upsert(1, 8)].map(summary));
    expect(reader.lastCut).toEqual({ bytes: full - end, recordIds: ['r2', 'r3', 'r4'] });
  });

  it('cuts a tail whose length field runs past the end of the file instead of allocating it', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const { end } = await log.append([upsert(0, 8), upsert(1, 8)]);
    await log.close();
    const file = join(dir, 'records.log');
    await appendFile(file, Buffer.alloc(5 * 1024 * 1024, 0xff)); // length 0xffffffff: 4 GiB
    const follower = await new RecordLog(dir, false).readFrom(0);
    expect(follower.entries.map(summary)).toEqual([upsert(0, 8), upsert(1, 8)].map(summary));
    expect(follower.end).toBe(end);
    const reader = new RecordLog(dir, false);
    expect((await reader.load()).map(summary)).toEqual([upsert(0, 8), upsert(1, 8)].map(summary));
    expect(reader.lastCut).toEqual({ bytes: 5 * 1024 * 1024, recordIds: [] });
    expect((await stat(file)).size).toBe(end);
  });

  it('reads an entry km never writes as JSON.parse does: later keys after the payload', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    // The writer puts payloadJson as is after "payload":, so these texts land in the log verbatim.
    const odd = (id: string, payloadJson: string): LogEntry => ({ op: 'upsert', record: { id, tags: {}, payloadJson }, vector: undefined });
    await log.append([odd('a', '{"text":"hi"},"extra":{"y":1}'), odd('b', '{},"tags":{"g":["2"]}')]);
    await log.close();
    const read = await new RecordLog(dir, false).load();
    expect(read.map((e) => (e.op === 'upsert' ? [e.record.id, e.record.tags, e.record.payloadJson] : []))).toEqual([
      ['a', {}, '{"text":"hi"}'],
      ['b', { g: ['2'] }, '{}'],
    ]);
  });

  it('rejects a load on an intact entry whose JSON does not parse, as before the fast path', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    await log.append([upsert(0, 8), { op: 'upsert', record: { id: 'a', tags: {}, payloadJson: '' }, vector: undefined }]);
    await log.close();
    await expect(new RecordLog(dir, false).load()).rejects.toThrow(SyntaxError);
  });
});
describe('RecordLog append that fails part way', () => {
  it('cuts what the failed write left, so later appends load (a full disk)', async () => {
    const dir = await tempDir();
    const log = new RecordLog(dir, false);
    const first = await log.append([upsert(1, 8)]);
    // The next write leaves half its bytes, then fails.
    const write = await failNextFileWriteHalfWay(dir);
    await expect(log.append([upsert(2, 8)])).rejects.toThrow(/ENOSPC/);
    write.mockRestore();
    expect((await stat(join(dir, 'records.log'))).size).toBe(first.end);
    await log.append([upsert(3, 8)]);
    await log.close();
    const reader = new RecordLog(dir, false);
    expect((await reader.load()).map(summary)).toEqual([upsert(1, 8), upsert(3, 8)].map(summary));
    expect(reader.lastCut).toBeUndefined();
  });
});
