import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestService } from './helpers.js';
import { multipartBody, sendRaw, type RawResponse } from './raw-http.js';

const BOUNDARY = 'b7f2c6e1-5a2d-4c1e-9f7b-3d8a2e4c6b10';
const good = multipartBody(BOUNDARY, [['documentId', 'doc1']], [{ name: 'a.txt', content: 'hello world' }]);

function expectProblem(res: RawResponse, status: number, detail: RegExp): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toMatchObject({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
  });
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, detail: expect.stringMatching(detail) });
}

describe('malformed multipart gets a 400 ProblemDetails naming the problem, and leaves no spool file', () => {
  const service = useTestService();

  const upload = (contentType: string, body: Buffer | string) =>
    sendRaw(service().url, 'POST', '/upload', { 'content-type': contentType }, body);

  const cases: Array<[string, () => Promise<RawResponse>, RegExp]> = [
    ['no boundary parameter', () => upload('multipart/form-data', good), /boundary/i],
    ['an empty boundary parameter', () => upload('multipart/form-data; boundary=', good), /boundary/i],
    ['a boundary that is not the one in the body', () => upload('multipart/form-data; boundary=not-the-one', good), /multipart/i],
    [
      'a body cut in the middle of a file',
      () => upload(`multipart/form-data; boundary=${BOUNDARY}`, good.subarray(0, good.length - 30)),
      /multipart|end/i,
    ],
    [
      'a body cut in the middle of the part headers',
      () => upload(`multipart/form-data; boundary=${BOUNDARY}`, good.subarray(0, good.indexOf('filename') + 4)),
      /multipart|end/i,
    ],
    [
      'garbage',
      () => upload(`multipart/form-data; boundary=${BOUNDARY}`, Buffer.from('\u0000\u0001garbage\r\n\r\n--x--\r\n'.repeat(20))),
      /multipart/i,
    ],
    [
      'part headers without a blank line',
      () =>
        upload(
          `multipart/form-data; boundary=${BOUNDARY}`,
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name=documentId\r\n${'x'.repeat(100)}--${BOUNDARY}--\r\n`,
        ),
      /multipart|end/i,
    ],
  ];

  it.each(cases)('%s', async (_name, send, detail) => {
    expectProblem(await send(), 400, detail);
    expect((await fetch(`${service().url}/health`)).status).toBe(200);
  });

  it('accepts the same bytes when they are well formed (the cases above fail for their flaw only)', async () => {
    const res = await upload(`multipart/form-data; boundary=${BOUNDARY}`, good);
    expect(res.status).toBe(202);
  });

  it('left no spooled file behind', async () => {
    expect(await readdir(join(service().config.dataDirectory, 'tmp', 'uploads'), { recursive: true }).catch(() => [])).toEqual([]);
  });
});
