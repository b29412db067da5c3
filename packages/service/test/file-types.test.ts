import { describe, expect, it } from 'vitest';
import { type TestService, useTestService } from './helpers.js';

/**
 * A multipart body written the way Kernel Memory's .NET MemoryWebClient writes it: fields as
 * `form-data` parts, each file part with a Content-Disposition and NO Content-Type header.
 */
function dotnetMultipart(
  fields: Record<string, string>,
  files: Array<{ field: string; name: string; content: Buffer }>,
): { body: Buffer; contentType: string } {
  const boundary = `dotnet-boundary-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=${name}\r\n\r\n${value}\r\n`,
      ),
    );
  }
  for (const file of files) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n\r\n`),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary="${boundary}"` };
}

/** A one-page PDF whose page shows `text` in Helvetica, with a correct cross-reference table. */
function pdfWithText(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let body = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

async function upload(service: TestService, documentId: string, name: string, content: Buffer): Promise<void> {
  const { body, contentType } = dotnetMultipart({ index: 'types', documentId }, [{ field: 'file1', name, content }]);
  const res = await fetch(`${service.url}/upload`, { method: 'POST', headers: { 'content-type': contentType }, body });
  expect(res.status).toBe(202);
}

async function finalStatus(service: TestService, documentId: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        const res = await fetch(`${service.url}/upload-status?index=types&documentId=${documentId}`);
        status = res.status === 200 ? ((await res.json()) as Record<string, unknown>) : {};
        return status.completed === true || status.failed === true;
      },
      { timeout: 30_000, interval: 50 },
    )
    .toBe(true);
  return status;
}

async function search(
  service: TestService,
  query: string,
): Promise<Array<{ sourceName: string; sourceContentType: string; partitions: Array<{ text: string }> }>> {
  const res = await fetch(`${service.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ index: 'types', query, limit: 5 }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Array<{ sourceName: string; sourceContentType: string; partitions: Array<{ text: string }> }> })
    .results;
}

describe('file parts without Content-Type, as the .NET MemoryWebClient sends them, are typed by extension and bytes', () => {
  const service = useTestService();

  it('an .html file is indexed as text: search finds its words, not its tags', async () => {
    const html =
      '<!DOCTYPE html><html><head><title>Glaciers</title><style>.x{color:blue}</style></head><body><h1>Glaciers</h1><p>Glaciers carve U-shaped valleys over thousands of years.</p></body></html>';
    await upload(service(), 'page', 'x.html', Buffer.from(html));
    expect(await finalStatus(service(), 'page')).toMatchObject({ completed: true, failed: false });
    const results = await search(service(), 'glaciers carve valleys');
    const page = results.find((r) => r.sourceName === 'x.html');
    expect(page?.sourceContentType).toBe('text/html');
    const text = page!.partitions.map((p) => p.text).join('\n');
    expect(text).toContain('Glaciers carve U-shaped valleys');
    expect(text).not.toMatch(/<p>|<h1>|<style>|color:blue/);
  });

  it('a .pdf file is decoded as a PDF (not refused as binary text) and its text is searchable', async () => {
    await upload(service(), 'report', 'report.pdf', pdfWithText('Icebergs calve from tidewater glaciers into the sea.'));
    const status = await finalStatus(service(), 'report');
    expect(status).toMatchObject({ completed: true, failed: false });
    expect(status.failed_files).toBeUndefined();
    const results = await search(service(), 'icebergs calve tidewater glaciers');
    const pdf = results.find((r) => r.sourceName === 'report.pdf');
    expect(pdf?.sourceContentType).toBe('application/pdf');
    expect(pdf?.partitions[0]?.text).toContain('Icebergs calve from tidewater glaciers');
  });
});
