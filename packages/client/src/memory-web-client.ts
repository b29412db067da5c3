import { openAsBlob } from 'node:fs';
import { Readable } from 'node:stream';
import {
  documentFromInput,
  InvalidInputError,
  isStatusReady,
  KmError,
  MemoryFilter,
  normalizeIndexName,
  toMemoryFilters,
  waitForDocumentStatus,
  type DataPipelineStatus,
  type DocumentFiles,
  type DocumentFileSource,
  type DocumentList,
  type DocumentSummary,
  type IKernelMemory,
  type ImportInput,
  type ImportOptions,
  type IndexDetails,
  type MemoryAnswer,
  type RedriveOptions,
  type RedriveResult,
  type RetrievalOptions,
  type SearchOptions,
  type SearchResult,
  type StreamableFileContent,
  type TagCollection,
  type WaitForDocumentOptions,
} from '@km/core';
import {
  readAnswerStream,
  type AskRequest,
  type DocumentTagsUpdate,
  type SearchRequest,
  type SyncJob,
  type SyncJobList,
  type SyncRequest,
} from '@km/wire';
import { documentListQuery, type DocumentListOptions } from './document-list-query.js';
import { toClientError } from './errors.js';
import { waitForSyncJob, type WaitForSyncOptions } from './wait-for-sync.js';

/** Options of {@link MemoryWebClient}. */
export interface MemoryWebClientOptions {
  /** The access key, sent in `apiKeyHeader`. */
  apiKey?: string;
  /** @default 'Authorization' */
  apiKeyHeader?: string;
  /** Time limit of one request (not of a streamed answer once it started). @default 120000 */
  timeoutMs?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch of your own (proxies, tests). @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Times a request answered 503 (a backend of the service down) or 429 is sent again, after the
   * response's `Retry-After` (or 0.5 s, 1 s, 2 s... without one). @default 3
   */
  retries?: number;
  /** Longest wait before a retry, whatever `Retry-After` asks: a longer ask ends the retries. @default 30000 */
  maxRetryDelayMs?: number;
}

/** Options of {@link MemoryWebClient.waitForDocument}. */
/** Options of `waitForDocument`; the status is polled every 500 ms unless `pollIntervalMs` says otherwise. */
export type WaitOptions = WaitForDocumentOptions;

/**
 * The memory API over HTTP: the same `IKernelMemory` as `MemoryServerless`, against a km
 * service or a Kernel Memory v1 service. Imports return once the service accepted the
 * upload; `waitForDocument` (or `isDocumentReady`) tells when ingestion is done.
 *
 * ```ts
 * const memory = new MemoryWebClient('http://127.0.0.1:9001', { apiKey: process.env.KM_ACCESS_KEY1 });
 * const id = await memory.importDocument('./handbook.pdf', { tags: { team: ['hr'] } });
 * await memory.waitForDocument(id);
 * for await (const chunk of memory.askStreaming('How many vacation days do I get?')) process.stdout.write(chunk.text);
 * ```
 */
export class MemoryWebClient implements IKernelMemory {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;
  private readonly maxRetryDelayMs: number;

  constructor(endpoint: string, options: MemoryWebClientOptions = {}) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new InvalidInputError('invalid_argument', `service URL ${JSON.stringify(endpoint)} is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InvalidInputError('invalid_argument', `service URL must be http or https, got ${url.protocol}`);
    }
    this.baseUrl = url.toString().replace(/\/+$/, '');
    this.headers = { ...options.headers };
    if (options.apiKey) this.headers[options.apiKeyHeader ?? 'Authorization'] = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.maxRetryDelayMs = Math.max(0, options.maxRetryDelayMs ?? 30_000);
  }

  async importDocument(input: ImportInput, options: ImportOptions = {}): Promise<string> {
    const document = documentFromInput(input, options);
    const form = new FormData();
    form.append('index', normalizeIndexName(options.index));
    form.append('documentId', document.id);
    for (const [key, values] of Object.entries(document.tags)) for (const value of values) form.append('tags', `${key}:${value ?? ''}`);
    for (const step of options.steps ?? []) form.append('steps', step);
    if (options.args && Object.keys(options.args).length > 0) form.append('args', JSON.stringify(options.args));
    let i = 0;
    for (const file of document.files) form.append(`file${++i}`, await toBlob(file), file.name);
    const res = await this.request('POST', '/upload', { body: form, signal: options.signal });
    const accepted = (await res.json()) as { documentId?: string };
    return accepted.documentId ?? document.id;
  }

  importText(text: string, options: ImportOptions = {}): Promise<string> {
    if (typeof text !== 'string') throw new InvalidInputError('invalid_argument', 'text must be a string');
    return this.importDocument({ name: 'content.txt', data: text, mimeType: 'text/plain' }, options);
  }

  /** Asks the service to fetch the page (KM's convention: a `content.url` file holding the URL). */
  importWebPage(url: string, options: ImportOptions = {}): Promise<string> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidInputError('invalid_argument', `${JSON.stringify(url)} is not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidInputError('invalid_argument', `only http and https pages can be imported, got ${parsed.protocol}`);
    }
    return this.importDocument({ name: 'content.url', data: parsed.toString(), mimeType: 'text/x-uri' }, options);
  }

  async listIndexes(): Promise<IndexDetails[]> {
    const res = await this.request('GET', '/indexes');
    return ((await res.json()) as { results?: IndexDetails[] }).results ?? [];
  }

  async deleteIndex(index?: string): Promise<void> {
    await this.request('DELETE', `/indexes?${query({ index: normalizeIndexName(index) })}`, { allow404: true });
  }

  async deleteDocument(documentId: string, index?: string): Promise<void> {
    await this.request('DELETE', `/documents?${query({ index: normalizeIndexName(index), documentId })}`, { allow404: true });
  }

  /**
   * Runs again, from their last completed step, the failed documents of every index, of
   * `options.index`, or one document (`POST /redrive`, km's own route), and with `stalled` those
   * whose state stopped changing. Idempotent.
   *
   * ```ts
   * const { redriven } = await memory.redrive({ index: 'docs' });
   * ```
   */
  async redrive(options: RedriveOptions = {}): Promise<RedriveResult> {
    const params: Record<string, string> = {};
    if (options.index !== undefined || options.documentId !== undefined) params.index = normalizeIndexName(options.index);
    if (options.documentId !== undefined) params.documentId = options.documentId;
    if (options.stalled) params.stalled = 'true';
    if (options.stalledAfterMs !== undefined) params.stalledAfterSeconds = String(options.stalledAfterMs / 1000);
    const res = await this.request('POST', `/redrive?${query(params)}`);
    return (await res.json()) as RedriveResult;
  }

  /** True once the document is completed, not empty, and none of its files failed. */
  async isDocumentReady(documentId: string, index?: string): Promise<boolean> {
    const status = await this.getDocumentStatus(documentId, index);
    return status !== null && isStatusReady(status);
  }

  async getDocumentStatus(documentId: string, index?: string): Promise<DataPipelineStatus | null> {
    const res = await this.request('GET', `/upload-status?${query({ index: normalizeIndexName(index), documentId })}`, { allow404: true });
    if (res.status === 404) return null;
    return (await res.json()) as DataPipelineStatus;
  }

  /**
   * Polls the status until the document is completed; throws `pipeline_failed` when it
   * failed, or when a file of it failed (the message names each file and its reason, also
   * against services that report such a document `completed`), and `aborted` at the time limit.
   */
  async waitForDocument(documentId: string, options: WaitOptions = {}): Promise<DataPipelineStatus> {
    return waitForDocumentStatus(documentId, () => this.getDocumentStatus(documentId, options.index), options, 500);
  }

  async exportFile(documentId: string, fileName: string, index?: string): Promise<StreamableFileContent> {
    const path = `/download?${query({ index: normalizeIndexName(index), documentId, filename: fileName })}`;
    const first = await this.request('GET', path);
    let unread: Response | undefined = first;
    return {
      fileName,
      fileType: first.headers.get('content-type')?.split(';')[0] ?? 'application/octet-stream',
      lastWrite: new Date(first.headers.get('last-modified') ?? Date.now()),
      size: Number(first.headers.get('content-length') ?? 0),
      getStream: async () => {
        const res = unread ?? (await this.request('GET', path));
        unread = undefined;
        if (!res.body) return Readable.from([]);
        return Readable.fromWeb(res.body as never);
      },
    };
  }

  /**
   * A page of an index's documents in id order (`GET /documents`), with their state, own tags
   * and uploaded files; `nextCursor` continues it (`null` on the last page). A filtered page may
   * be short, even empty, and still have a next one: follow the cursor, or use {@link documents}.
   *
   * ```ts
   * const page = await memory.listDocuments({ index: 'docs', states: ['failed'], filters: [MemoryFilters.byTag('team', 'hr')] });
   * ```
   */
  async listDocuments(options: DocumentListOptions = {}): Promise<DocumentList> {
    const res = await this.request('GET', `/documents?${documentListQuery(options)}`, { signal: options.signal });
    return (await res.json()) as DocumentList;
  }

  /**
   * Every document of an index that matches the options, one page request at a time (each
   * `limit` long), following the cursors until the last page.
   *
   * ```ts
   * for await (const document of memory.documents({ index: 'docs' })) console.log(document.documentId, document.state);
   * ```
   */
  async *documents(options: Omit<DocumentListOptions, 'cursor'> = {}): AsyncIterable<DocumentSummary> {
    let cursor: string | null = null;
    do {
      const page: DocumentList = await this.listDocuments({ ...options, ...(cursor !== null ? { cursor } : {}) });
      yield* page.documents;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /** The files stored with a document (`GET /documents/files`): its uploads and what the pipeline made from them; `document_not_found` when unknown. */
  async getDocumentFiles(documentId: string, index?: string): Promise<DocumentFiles> {
    const res = await this.request('GET', `/documents/files?${query({ index: normalizeIndexName(index), documentId })}`);
    return (await res.json()) as DocumentFiles;
  }

  /**
   * Replaces a document's own tags without ingesting it again (`PUT /documents/tags`); resolves
   * with the document as listed. The service refuses reserved `__` tags (`invalid_tag`), an
   * unknown document (`document_not_found`) and one being ingested or deleted (`document_busy`).
   * A full replacement, so sending it twice is harmless.
   *
   * ```ts
   * await memory.updateDocumentTags('handbook', { team: ['hr'], year: ['2026'] }, 'docs');
   * ```
   */
  async updateDocumentTags(documentId: string, tags: TagCollection, index?: string): Promise<DocumentSummary> {
    const body: DocumentTagsUpdate = { tags };
    const res = await this.request('PUT', `/documents/tags?${query({ index: normalizeIndexName(index), documentId })}`, { json: body });
    return (await res.json()) as DocumentSummary;
  }

  /**
   * Starts a sync job on the service (`POST /sync`, km only): the service makes the index hold
   * what a folder on its own disk (under its `KM_SYNC_ROOTS`) or a web site holds. Resolves with
   * the running job; `sync_busy` (409) while a sync of the same source into the index runs.
   *
   * ```ts
   * const job = await memory.startSync({ index: 'docs', source: { type: 'web', url: 'https://example.com/docs/', sitemap: true } });
   * const done = await memory.waitForSync(job.jobId, { onProgress: (j) => console.log(j.counts) });
   * ```
   */
  async startSync(request: SyncRequest, options: { signal?: AbortSignal } = {}): Promise<SyncJob> {
    const res = await this.request('POST', '/sync', { json: request, signal: options.signal });
    return (await res.json()) as SyncJob;
  }

  /** A sync job as it stands (`GET /sync/{jobId}`): state, counts so far, report once finished; `not_found` when unknown. */
  async getSyncJob(jobId: string, options: { signal?: AbortSignal } = {}): Promise<SyncJob> {
    const res = await this.request('GET', `/sync/${encodeURIComponent(jobId)}`, { signal: options.signal });
    return (await res.json()) as SyncJob;
  }

  /** The service's recent sync jobs, newest first (`GET /sync`). */
  async listSyncJobs(): Promise<SyncJob[]> {
    const res = await this.request('GET', '/sync');
    return ((await res.json()) as SyncJobList).jobs;
  }

  /** Asks a running sync job to stop (`DELETE /sync/{jobId}`); it turns `cancelled` once it has. Resolves with the job. */
  async cancelSyncJob(jobId: string): Promise<SyncJob> {
    const res = await this.request('DELETE', `/sync/${encodeURIComponent(jobId)}`);
    return (await res.json()) as SyncJob;
  }

  /**
   * Polls a sync job until it is no longer running and resolves with it, whatever its end
   * (`completed`, `failed`, `cancelled`: read `status`, `report` and `error`); `aborted` once
   * `timeoutMs` passed or `signal` aborted. `onProgress` sees the job at each poll.
   */
  waitForSync(jobId: string, options: WaitForSyncOptions = {}): Promise<SyncJob> {
    return waitForSyncJob((signal) => this.getSyncJob(jobId, { signal }), options);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const body: SearchRequest = { ...this.retrievalBody(options), query, limit: options.limit ?? -1 };
    const res = await this.request('POST', '/search', { json: body, signal: options.signal });
    return (await res.json()) as SearchResult;
  }

  async ask(question: string, options: RetrievalOptions = {}): Promise<MemoryAnswer> {
    const res = await this.request('POST', '/ask', { json: { ...this.retrievalBody(options), question }, signal: options.signal });
    return (await res.json()) as MemoryAnswer;
  }

  /** The answer as server-sent events: KM's `streamState` chunks until `data: [DONE]`. */
  async *askStreaming(question: string, options: RetrievalOptions = {}): AsyncIterable<MemoryAnswer> {
    const res = await this.request('POST', '/ask', {
      json: { ...this.retrievalBody(options), question, stream: true },
      signal: options.signal,
      streaming: true,
    });
    if (!res.body) return;
    for await (const chunk of readAnswerStream(res.body)) {
      if (chunk.streamState === 'error')
        throw new KmError('upstream_error', `the service failed while answering: ${chunk.noResultReason ?? 'unknown error'}`);
      yield chunk;
    }
  }

  private retrievalBody(options: RetrievalOptions): Omit<SearchRequest, 'query'> & Omit<AskRequest, 'question'> {
    const filters = toMemoryFilters(options.filters ?? []);
    if (options.filter) filters.push(options.filter instanceof MemoryFilter ? options.filter : MemoryFilter.fromJSON(options.filter));
    return {
      index: normalizeIndexName(options.index),
      filters: filters.map((f) => f.toJSON()),
      // Only what was given: KM servers know neither mode, fusion nor rerank, and an absent
      // minRelevance leaves the server's default.
      ...(options.minRelevance !== undefined ? { minRelevance: options.minRelevance } : {}),
      ...(options.mode !== undefined ? { mode: options.mode } : {}),
      ...(options.fusion !== undefined ? { fusion: options.fusion } : {}),
      ...(options.rerank !== undefined ? { rerank: options.rerank } : {}),
      ...(options.args ? { args: options.args } : {}),
    };
  }

  /**
   * Sends a request, and again (up to `retries` times) while the service answers 503 or 429,
   * waiting what its `Retry-After` asks (capped by `maxRetryDelayMs`). Every km route may be
   * sent twice: an upload names its document, the others read or are idempotent.
   */
  private async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(method, path, options);
      if (res.ok || (options.allow404 && res.status === 404)) return res;
      const error = await toClientError(res, method, path);
      if ((res.status !== 503 && res.status !== 429) || attempt >= this.retries) throw error;
      const delay = error.retryAfterMs ?? Math.min(500 * 2 ** attempt, this.maxRetryDelayMs);
      if (delay > this.maxRetryDelayMs) throw error;
      await sleep(delay, options.signal).catch((cause: unknown) => {
        throw new KmError('aborted', `${method} ${path.split('?')[0]} was aborted`, { cause });
      });
    }
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers };
    let body: RequestInit['body'] = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    try {
      // A streamed answer may run longer than the request time limit once it started.
      res = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body ?? null,
        signal: options.streaming ? (options.signal ?? null) : signal,
      });
    } catch (cause) {
      if (options.signal?.aborted) throw new KmError('aborted', `${method} ${path} was aborted`, { cause });
      const timedOut = timeout.aborted;
      throw new KmError(
        'transient',
        timedOut
          ? `${method} ${path} timed out after ${this.timeoutMs} ms`
          : `cannot reach the service at ${this.baseUrl}: ${(cause as Error).message}`,
        {
          cause,
          transient: true,
        },
      );
    }
    return res;
  }
}

interface RequestOptions {
  json?: unknown;
  body?: FormData;
  signal?: AbortSignal | undefined;
  allow404?: boolean;
  streaming?: boolean;
}

/** Resolves after `ms`, or rejects when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function toBlob(file: DocumentFileSource): Promise<Blob> {
  const type = file.mimeType ?? 'application/octet-stream';
  if ('path' in file) {
    try {
      return await openAsBlob(file.path, { type });
    } catch (cause) {
      throw new InvalidInputError('invalid_argument', `cannot read file ${JSON.stringify(file.path)}`, { cause });
    }
  }
  if ('data' in file) return new Blob([typeof file.data === 'string' ? file.data : new Uint8Array(file.data)], { type });
  const chunks: Uint8Array[] = [];
  const stream = file.stream as AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
  const iterable = 'getReader' in stream ? Readable.fromWeb(stream as never) : stream;
  for await (const chunk of iterable as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return new Blob(chunks, { type });
}

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}
