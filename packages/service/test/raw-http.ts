import { request } from 'node:http';

/** A response read in full. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends exactly these bytes as the body of a request (no client-side reformatting), with the
 * given headers; `content-length` is the body's unless given.
 */
export function sendRaw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer = '',
): Promise<RawResponse> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers: { 'content-length': String(bytes.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/**
 * A multipart body written by hand the way KM's .NET `MemoryWebClient` writes it: CRLF line
 * ends, fields as `form-data; name=…`, file parts with a file name and no Content-Type.
 */
export function multipartBody(
  boundary: string,
  fields: Array<[string, string]>,
  files: Array<{ field?: string; name: string; content: string | Buffer; type?: string }>,
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=${name}\r\n\r\n${value}\r\n`,
        'utf8',
      ),
    );
  }
  files.forEach((file, i) => {
    const type = file.type ? `Content-Type: ${file.type}\r\n` : '';
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name=${file.field ?? `file${i + 1}`}; filename="${file.name}"; filename*=utf-8''${encodeURIComponent(file.name)}\r\n${type}\r\n`,
        'utf8',
      ),
    );
    parts.push(typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content, Buffer.from('\r\n'));
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}
