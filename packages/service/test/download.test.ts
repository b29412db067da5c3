import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { uploadForm, useTestService, waitForCompletion } from './helpers.js';

const CONTENT = Array.from({ length: 200 }, (_, i) => `line ${i}: the Moon orbits the Earth.`).join('\n');

describe('GET /download', () => {
  const service = useTestService();
  const url = (filename: string, extra = '') =>
    `${service().url}/download?index=docs&documentId=doc1&filename=${encodeURIComponent(filename)}${extra}`;
  beforeAll(async () => {
    const res = await fetch(`${service().url}/upload`, {
      method: 'POST',
      body: uploadForm({ index: 'docs', documentId: 'doc1' }, [{ name: 'moon.txt', content: CONTENT }]),
    });
    expect(res.status).toBe(202);
    await waitForCompletion(service().url, 'doc1', 'docs');
  });

  it('serves the whole file with Accept-Ranges when no range is asked', async () => {
    const res = await fetch(url('moon.txt'));
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(CONTENT)));
    expect(await res.text()).toBe(CONTENT);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=100-', 100, CONTENT.length - 1],
    ['bytes=-25', CONTENT.length - 25, CONTENT.length - 1],
    ['bytes=5000-999999', 5000, CONTENT.length - 1],
  ])('serves %s as 206 with Content-Range', async (range, start, end) => {
    const res = await fetch(url('moon.txt'), { headers: { range } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${CONTENT.length}`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(await res.text()).toBe(CONTENT.slice(start, end + 1));
  });

  it('answers 416 with the size for a range past the end', async () => {
    const res = await fetch(url('moon.txt'), { headers: { range: `bytes=${CONTENT.length}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${CONTENT.length}`);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('serves the whole file when If-Range names another version', async () => {
    const res = await fetch(url('moon.txt'), { headers: { range: 'bytes=0-9', 'if-range': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(CONTENT);
  });

  it('serves the range when If-Range names the current version (206)', async () => {
    const lastModified = (await fetch(url('moon.txt'), { method: 'HEAD' })).headers.get('last-modified')!;
    expect(lastModified).toBeTruthy();
    const res = await fetch(url('moon.txt'), { headers: { range: 'bytes=0-9', 'if-range': lastModified } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 0-9/${CONTENT.length}`);
    expect(await res.text()).toBe(CONTENT.slice(0, 10));
  });

  it('streams a range of a large file from disk', async () => {
    // real bytes over a raw socket: the body stops at the range's end
    const body = await new Promise<string>((resolve, reject) => {
      request(url('moon.txt'), { headers: { range: 'bytes=7-13' } }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(body).toBe(CONTENT.slice(7, 14));
  });

  it.each(['..km.pipeline_status.json', '..km.moon.txt.extract.txt', '..km.moon.txt.partition.0.txt', '__pipeline_status.json'])(
    'does not serve the internal file %s (404)',
    async (name) => {
      const res = await fetch(url(name));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'file_not_found', detail: expect.stringMatching(/artifacts=true/) });
    },
  );

  it('serves internal files when asked with artifacts=true', async () => {
    const status = await fetch(url('..km.pipeline_status.json', '&artifacts=true'));
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ document_id: 'doc1' });
    const listed = Object.keys(
      ((await (await fetch(url('..km.pipeline_status.json', '&artifacts=true'))).json()) as { files: Array<{ generated_files: object }> })
        .files[0]!.generated_files,
    );
    expect(listed.length).toBeGreaterThan(0);
    for (const name of listed) expect((await fetch(url(name, '&artifacts=true'))).status).toBe(200);
  });

  it('serves uploads named like km files exactly as uploaded, and the state still works', async () => {
    const files = [
      { name: 'a.txt', content: 'Comets have tails.' },
      { name: 'a.txt.extract.txt', content: 'My notes on comets.' },
      { name: '__pipeline_status.json', content: '{"planets":["Mars"]}' },
    ];
    const res = await fetch(`${service().url}/upload`, { method: 'POST', body: uploadForm({ index: 'docs', documentId: 'doc2' }, files) });
    expect(res.status).toBe(202);
    await waitForCompletion(service().url, 'doc2', 'docs');
    const status = await (await fetch(`${service().url}/upload-status?index=docs&documentId=doc2`)).json();
    expect(status).toMatchObject({ completed: true, failed: false, document_id: 'doc2' });
    for (const file of files) {
      const download = await fetch(`${service().url}/download?index=docs&documentId=doc2&filename=${encodeURIComponent(file.name)}`);
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(file.content);
    }
  });

  it('refuses to upload a file named in km’s namespace (400)', async () => {
    const res = await fetch(`${service().url}/upload`, {
      method: 'POST',
      body: uploadForm({ index: 'docs', documentId: 'doc3' }, [{ name: '..km.pipeline_status.json', content: '{}' }]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_file_name' });
  });

  it('refuses an artifacts value that is not a boolean', async () => {
    expect((await fetch(url('moon.txt', '&artifacts=maybe'))).status).toBe(400);
  });
});
