import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { CL100KTokenizer, type ITextGenerator } from '@km/core';
import { uploadForm, useTestService } from './helpers.js';

const IDLE_MS = 300;

/** A text generator slower than the idle timeout before its first chunk and between chunks. */
class SlowGenerator implements ITextGenerator {
  readonly maxTokenTotal = 4096;
  readonly modelName = 'slow';
  readonly tokenizer = new CL100KTokenizer();
  async *generate(): AsyncIterable<string> {
    await sleep(IDLE_MS * 3);
    yield 'The Moon is ';
    await sleep(IDLE_MS * 3);
    yield 'far away.';
  }
}

describe('a long answer is not cut by the idle timeout (connectionTimeoutMs)', () => {
  const service = useTestService({
    overrides: { http: { connectionTimeoutMs: IDLE_MS } },
    configure: (b) => b.withTextGenerator(new SlowGenerator()),
  });
  const ask = (stream: boolean) =>
    fetch(`${service().url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'sky', question: 'Where is the Moon?', stream }),
    });
  // Imported in process: over HTTP, a kept-alive socket closed by the 300 ms idle timeout could be
  // reused by the client and fail the set-up on a loaded machine (not what these tests are about).
  beforeAll(async () => {
    const { memory } = service();
    await memory.importText('The Moon orbits the Earth.', { index: 'sky', documentId: 'moon' });
    await memory.waitForDocument('moon', { index: 'sky', timeoutMs: 15_000 });
  });

  it('answers a non-streamed /ask that takes longer than the idle timeout', async () => {
    const res = await ask(false);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe('The Moon is far away.');
  });

  it('streams an answer whose chunks come slower than the idle timeout', async () => {
    const res = await ask(true);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('far away.');
    expect(body).toContain('[DONE]');
  });
});

describe('a slow upload body is refused (http.minUploadBytesPerSecond)', () => {
  const service = useTestService({
    overrides: { http: { connectionTimeoutMs: 0, requestTimeoutMs: 0, minUploadBytesPerSecond: 1000, minUploadRateGraceMs: 300 } },
  });

  it('answers 408 and closes the connection when the body drips', async () => {
    const socket = connect(Number(new URL(service().url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const boundary = 'XyZ';
    socket.write(
      `POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file1"; filename="a.txt"\r\n\r\n`,
    );
    // 10 bytes every 50 ms: 200 B/s, under the 1000 B/s minimum
    const drip = setInterval(() => socket.writable && socket.write('aaaaaaaaaa'), 50);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(response).toMatch(/request_timeout/);
    expect(response.toLowerCase()).toContain('connection: close');
  });

  it('accepts an upload that comes at the minimum rate', async () => {
    const res = await fetch(`${service().url}/upload`, {
      method: 'POST',
      body: uploadForm({ documentId: 'quick' }, [{ name: 'a.txt', content: 'hello', type: 'text/plain' }]),
    });
    expect(res.status).toBe(202);
  });
});
