import { get } from 'node:http';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { KmError, MemoryContentStorage } from '@km/core';
import { useTestService } from './helpers.js';

const CHUNK = 64 * 1024;
const LARGE = Buffer.alloc(4 * 1024 * 1024, 'a');

/**
 * Content storage that cannot read a range (the service cuts ranges itself), counts the bytes
 * its streams produced, and whose `broken.bin` fails after its first chunk (a connection reset).
 */
class CountingStorage extends MemoryContentStorage {
  override readonly supportsByteRanges = false;
  bytesRead = 0;
  closedStreams = 0;
  override async readFileStream(index: string, documentId: string, fileName: string): Promise<Readable> {
    // listed, but removed before it is opened
    if (fileName === 'gone.bin') throw new KmError('file_not_found', `file "${fileName}" not found`);
    const data = await this.readFile(index, documentId, fileName);
    let offset = 0;
    const stream = new Readable({
      read: () => {
        if (fileName === 'broken.bin' && offset > 0) {
          stream.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
          return;
        }
        if (offset >= data.length) {
          stream.push(null);
          return;
        }
        const chunk = data.subarray(offset, offset + CHUNK);
        offset += chunk.length;
        this.bytesRead += chunk.length;
        stream.push(chunk);
      },
    });
    stream.once('close', () => this.closedStreams++);
    return stream;
  }
}

/** GET over a fresh connection: the status, the bytes received and whether the response was aborted. */
function download(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number; aborted: boolean }> {
  return new Promise((resolve) => {
    get(url, { agent: false, headers }, (res) => {
      let bytes = 0;
      let aborted = false;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('aborted', () => (aborted = true));
      res.on('error', () => (aborted = true));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes, aborted: aborted || !res.complete }));
    }).on('error', () => resolve({ status: 0, bytes: 0, aborted: true })); // reset before the headers
  });
}

describe('GET /download from a content storage that cannot read ranges', () => {
  const storage = new CountingStorage();
  const service = useTestService({ configure: (b) => b.withContentStorage(storage) });
  const url = (filename: string) => `${service().url}/download?index=docs&documentId=doc1&filename=${filename}&artifacts=true`;
  beforeAll(async () => {
    await storage.writeFile('docs', 'doc1', 'large.bin', LARGE);
    await storage.writeFile('docs', 'doc1', 'broken.bin', LARGE);
    await storage.writeFile('docs', 'doc1', 'gone.bin', 'x');
  });

  it('answers a file that cannot be opened with a problem, without the attachment headers', async () => {
    const res = await fetch(url('gone.bin'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(res.headers.get('last-modified')).toBeNull();
  });

  it('stops reading the file past the end of a range and closes its stream', async () => {
    storage.bytesRead = 0;
    const closed = storage.closedStreams;
    const res = await download(url('large.bin'), { range: 'bytes=0-9' });
    expect(res).toMatchObject({ status: 206, bytes: 10, aborted: false });
    expect(storage.bytesRead).toBeLessThan(LARGE.length / 4);
    await expect.poll(() => storage.closedStreams).toBe(closed + 1);
  });

  it('serves a range in the middle of the file', async () => {
    const res = await fetch(url('large.bin'), { headers: { range: `bytes=${CHUNK - 3}-${CHUNK + 2}` } });
    expect(res.status).toBe(206);
    expect(await res.text()).toBe('aaaaaa');
  });

  it.each([
    ['a range', { range: 'bytes=10-' }, 206],
    ['the whole file', {}, 200],
  ])('aborts the response when the storage stream fails while serving %s; the service stays up', async (_, headers, status) => {
    const res = await download(url('broken.bin'), headers);
    expect([status, 0]).toContain(res.status); // 0: the connection was reset before the headers
    expect(res.aborted).toBe(true);
    expect(res.bytes).toBeLessThan(LARGE.length);
    expect((await fetch(`${service().url}/health`)).status).toBe(200);
  });
});
