import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the recorder received. */
export interface S3Request {
  method: string;
  /** Path without the query string, decoded (`/bucket/km/notes/doc/a.txt`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the recorder answers: an XML body (S3 answers XML), a status (200 by default) and headers. */
export interface S3Answer {
  status?: number;
  xml?: string;
  headers?: Record<string, string>;
  /** Announce a longer body than `xml`, send `xml`, then reset the connection (a download that breaks midway). */
  cut?: boolean;
}

/** A local HTTP server that records S3 requests and answers them as told (the conformance recorder answers JSON only). */
export interface S3Recorder {
  url: string;
  requests: S3Request[];
  close(): Promise<void>;
}

/** Starts the recorder; `answer` may hold a request back by returning a promise. */
export async function startS3Recorder(answer: (request: S3Request) => S3Answer | Promise<S3Answer>): Promise<S3Recorder> {
  const requests: S3Request[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url!, 'http://recorder');
      const request: S3Request = {
        method: req.method!,
        path: decodeURIComponent(url.pathname),
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(request);
      const { status = 200, xml, headers, cut } = await answer(request);
      if (cut) {
        res.writeHead(status, { 'content-length': String((xml ?? '').length + 1000), ...headers });
        res.write(xml ?? '', () => setTimeout(() => res.socket?.destroy(), 20));
        return;
      }
      res.writeHead(status, { ...(xml !== undefined ? { 'content-type': 'application/xml' } : {}), ...headers });
      res.end(xml ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An S3 error body. */
export const s3ErrorXml = (code: string, message = code): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
