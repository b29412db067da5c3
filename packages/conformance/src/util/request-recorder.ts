import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the recorder received. */
export interface RecordedRequest {
  method: string;
  /** Path and query string, as sent (`/collections/x/points?wait=true`). */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as text (empty when there was none). */
  body: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
}

/** What the recorder answers: a JSON body, with a status (200 by default) and extra headers. */
export interface RecorderAnswer {
  status?: number;
  json: unknown;
  headers?: Record<string, string>;
}

/** A local HTTP server that records requests and answers them as told. */
export interface RequestRecorder {
  /** `http://127.0.0.1:{port}`. */
  url: string;
  /** Every request so far, oldest first; empty it with `requests.length = 0`. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a recorder for request-shape tests of HTTP connectors: point the connector at
 * `recorder.url`, then check the paths, headers and bodies it sent against the backend's API
 * reference. It checks shapes only; whether a connector works is for the conformance suites
 * against the real backend.
 *
 * ```ts
 * const recorder = await startRequestRecorder(() => ({ json: { result: { collections: [] }, status: 'ok' } }));
 * await new QdrantMemoryDb({ url: recorder.url }).getIndexes();
 * expect(recorder.requests[0]).toMatchObject({ method: 'GET', path: '/collections' });
 * ```
 */
export async function startRequestRecorder(answer: (request: RecordedRequest) => RecorderAnswer): Promise<RequestRecorder> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: RecordedRequest = { method: req.method!, path: req.url!, headers: req.headers, body, json: parseJson(body) };
      requests.push(request);
      const { status = 200, json, headers } = answer(request);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
