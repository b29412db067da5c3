import { describe, expect, it } from 'vitest';
import { useTestService } from './helpers.js';
import { sendRaw } from './raw-http.js';

const BOUNDARY = 'km-json-fields';

/** An upload whose fields carry their own Content-Type (e.g. `args` sent as application/json). */
function body(fields: Array<{ name: string; value: string; type?: string }>): string {
  const parts = fields.map(
    (f) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${f.name}"\r\n${f.type ? `Content-Type: ${f.type}\r\n` : ''}\r\n${f.value}\r\n`,
  );
  parts.push(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file1"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nThe Moon orbits the Earth.\r\n`,
  );
  return `${parts.join('')}--${BOUNDARY}--\r\n`;
}

describe('multipart fields sent as application/json', () => {
  const service = useTestService();
  const upload = (fields: Array<{ name: string; value: string; type?: string }>) =>
    sendRaw(service().url, 'POST', '/upload', { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body(fields));

  it('reads a JSON-typed args field as its JSON (an unknown argument is named, not "[object Object]")', async () => {
    const res = await upload([
      { name: 'documentId', value: 'json-args' },
      { name: 'args', value: '{"custom_partitioning_max_tokens": 20}', type: 'application/json' },
    ]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ detail: expect.stringMatching(/custom_partitioning_max_tokens"/) });
  });

  it('accepts valid JSON-typed args', async () => {
    const res = await upload([
      { name: 'documentId', value: 'json-args-ok' },
      { name: 'args', value: '{"custom_partitioning_max_tokens_per_paragraph_int": 50}', type: 'application/json' },
    ]);
    expect(res.status).toBe(202);
  });

  it('answers 400 invalid_multipart for a JSON-typed field that is not JSON', async () => {
    const res = await upload([{ name: 'args', value: '{not json', type: 'application/json' }]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'invalid_multipart' });
  });

  it.each(['', '   ', 'null'])('treats args %j as no arguments', async (value) => {
    const res = await upload([
      { name: 'documentId', value: `empty-args-${value.trim().length}` },
      { name: 'args', value },
    ]);
    expect(res.status).toBe(202);
  });
});
