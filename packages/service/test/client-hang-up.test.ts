import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { uploadSpoolDirectory } from '../src/http/upload-spool.js';
import { useTestService } from './helpers.js';

const BOUNDARY = 'hangup';

/** Sends the headers of a request whose body is 1 MB long and part of the body, then closes the connection. */
async function hangUp(url: string, path: string, contentType: string, partialBody: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: ${contentType}\r\ncontent-length: 1000000\r\n\r\n${partialBody}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.destroy();
}

const multipartHead =
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="index"\r\n\r\ndocs\r\n` +
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file1"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\n`;

describe('a client that hangs up mid-request', () => {
  const service = useTestService();

  it('is logged at info as "client closed the connection", without a stack and without an error line', async () => {
    const before = service().logs.length;
    await hangUp(service().url, '/upload', `multipart/form-data; boundary=${BOUNDARY}`, `${multipartHead}${'x'.repeat(20_000)}`);
    const lines = () =>
      service()
        .logs.slice(before)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await vi.waitFor(() => expect(lines().some((l) => l.msg === 'client closed the connection')).toBe(true), { timeout: 5000 });
    const closed = lines().find((l) => l.msg === 'client closed the connection')!;
    expect(closed).toMatchObject({ level: 30, method: 'POST', url: '/upload' });
    expect(JSON.stringify(closed)).not.toContain('stack');
    expect(lines().filter((l) => (l.level as number) >= 50)).toEqual([]);
    // Nothing is left of the upload, and the service still serves others.
    const spool = uploadSpoolDirectory(service().config.dataDirectory);
    expect(existsSync(spool) ? await readdir(spool) : []).toEqual([]);
    expect((await fetch(`${service().url}/health`)).status).toBe(200);
  });
});

describe('a client that hangs up mid-download', () => {
  const service = useTestService();

  it('is not logged as an error (a guard: no line at all today)', async () => {
    const form = new FormData();
    form.append('index', 'docs');
    form.append('documentId', 'big');
    form.append('file1', new Blob([Buffer.alloc(8 * 1024 * 1024, 'a')], { type: 'application/octet-stream' }), 'big.bin');
    form.append('steps', 'extract');
    expect((await fetch(`${service().url}/upload`, { method: 'POST', body: form })).status).toBe(202);
    const before = service().logs.length;
    const { hostname, port } = new URL(service().url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /download?index=docs&documentId=big&filename=big.bin HTTP/1.1\r\nhost: ${hostname}:${port}\r\n\r\n`);
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = service()
      .logs.slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });
});
