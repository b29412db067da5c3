import { accessKey } from './access-key.js';
import {
  readAnswerStream,
  type AskRequest,
  type DataPipelineStatus,
  type DocumentFiles,
  type DocumentList,
  type DocumentState,
  type DocumentSummary,
  type DocumentTagsUpdate,
  type IndexList,
  type MemoryFilterJson,
  type MemoryAnswer,
  type ProblemDetails,
  type SearchRequest,
  type SearchResult,
  type SyncJob,
  type SyncJobList,
  type SyncRequest,
  type TagCollection,
  type UploadAccepted,
} from '@km/wire';

/** An error answer of the service (a ProblemDetails body), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Asks the person for an access key; resolves undefined when they cancel. */
export type KeyPrompt = (reason: string) => Promise<string | undefined>;

/** Options of {@link ApiClient}. */
export interface ApiClientOptions {
  /** The service's root, e.g. `/` or `/prefix/`. */
  baseUrl: string;
  /** The header the service reads the access key from. @default 'Authorization' */
  authHeader?: string;
  /** Called on a 401 or 403: the request is sent again with the key given. */
  askForKey: KeyPrompt;
}

/** The km service's HTTP API as the console uses it, with the access key of the tab. */
export class ApiClient {
  private readonly baseUrl: string;
  authHeader: string;
  private readonly askForKey: KeyPrompt;
  /** One prompt at a time: requests that fail together wait for the same key. */
  private pendingKey: Promise<string | undefined> | undefined;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
    this.authHeader = options.authHeader ?? 'Authorization';
    this.askForKey = options.askForKey;
  }

  /** The URL of a route of the service, e.g. `url('download', { index })`. */
  url(path: string, query: Record<string, string> = {}): string {
    const search = new URLSearchParams(query).toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  async listIndexes(): Promise<string[]> {
    const body = (await (await this.request('indexes')).json()) as IndexList;
    return body.results.map((r) => r.name);
  }

  async deleteIndex(index: string): Promise<void> {
    await this.request(this.path('indexes', { index }), { method: 'DELETE' });
  }

  /**
   * Uploads files (or a URL, as KM's `content.url` file) as one document; without `documentId`
   * the service picks one, without `steps` it runs its default pipeline.
   */
  async upload(input: {
    index: string;
    tags: string[];
    files: File[];
    url?: string;
    documentId?: string;
    steps?: readonly string[];
  }): Promise<UploadAccepted> {
    const form = new FormData();
    form.append('index', input.index);
    if (input.documentId) form.append('documentId', input.documentId);
    for (const tag of input.tags) form.append('tags', tag);
    for (const step of input.steps ?? []) form.append('steps', step);
    if (input.url) form.append('file1', new Blob([input.url], { type: 'text/plain' }), 'content.url');
    input.files.forEach((file, i) => form.append(`file${i + 1}`, file, file.name));
    return (await (await this.request('upload', { method: 'POST', body: form })).json()) as UploadAccepted;
  }

  /** The pipeline status of a document, or undefined once it is not found (deleted, or never uploaded). */
  async documentStatus(index: string, documentId: string): Promise<DataPipelineStatus | undefined> {
    try {
      return (await (await this.request(this.path('upload-status', { index, documentId }))).json()) as DataPipelineStatus;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * A page of the index's documents (`GET /documents`), in id order: `cursor` is the previous
   * page's `nextCursor`; `filters` are KM filters (any of them matches), `states` the states shown.
   */
  async listDocuments(query: {
    index: string;
    limit?: number;
    cursor?: string;
    states?: readonly DocumentState[];
    filters?: readonly MemoryFilterJson[];
  }): Promise<DocumentList> {
    const params: Record<string, string> = { index: query.index };
    if (query.limit !== undefined) params.limit = String(query.limit);
    if (query.cursor) params.cursor = query.cursor;
    if (query.states?.length) params.state = query.states.join(',');
    if (query.filters?.length) params.filters = JSON.stringify(query.filters);
    return (await (await this.request(this.path('documents', params))).json()) as DocumentList;
  }

  /** A document's stored files (`GET /documents/files`): the uploads and what the pipeline made of them. */
  async documentFiles(index: string, documentId: string): Promise<DocumentFiles> {
    return (await (await this.request(this.path('documents/files', { index, documentId }))).json()) as DocumentFiles;
  }

  /** Replaces a document's own tags (`PUT /documents/tags`); answers the document as listed. */
  async updateDocumentTags(index: string, documentId: string, tags: TagCollection): Promise<DocumentSummary> {
    const init = { ...json({ tags } satisfies DocumentTagsUpdate), method: 'PUT' };
    return (await (await this.request(this.path('documents/tags', { index, documentId }), init)).json()) as DocumentSummary;
  }

  async deleteDocument(index: string, documentId: string): Promise<void> {
    await this.request(this.path('documents', { index, documentId }), { method: 'DELETE' });
  }

  async search(body: SearchRequest & Required<Pick<SearchRequest, 'index' | 'filters'>>): Promise<SearchResult> {
    return (await (await this.request('search', json(body))).json()) as SearchResult;
  }

  /** Asks with `stream: true`, yielding the service's answer chunks as they arrive. */
  async *askStreaming(body: AskRequest & Required<Pick<AskRequest, 'index' | 'filters'>>): AsyncIterable<MemoryAnswer> {
    const res = await this.request('ask', json({ ...body, stream: true } satisfies AskRequest));
    if (!res.body) throw new ApiError(0, 'the answer stream has no body');
    // Reads to the end of the body (the service closes it right after [DONE]) rather than cancel it.
    yield* readAnswerStream(res.body);
  }

  /** A file of a document (`GET /download`), as a Blob; `artifacts` reads a generated file (a partition…). */
  async download(index: string, documentId: string, filename: string, artifacts = false): Promise<Blob> {
    const query = { index, documentId, filename, ...(artifacts ? { artifacts: 'true' } : {}) };
    return (await this.request(this.path('download', query))).blob();
  }

  /** Starts a sync job (`POST /sync`); answers the running job. */
  async startSync(request: SyncRequest): Promise<SyncJob> {
    return (await (await this.request('sync', json(request))).json()) as SyncJob;
  }

  /** The service's recent sync jobs, newest first (`GET /sync`). */
  async listSyncJobs(): Promise<SyncJob[]> {
    return ((await (await this.request('sync')).json()) as SyncJobList).jobs;
  }

  /** Asks a running sync job to stop (`DELETE /sync/{jobId}`). */
  async cancelSyncJob(jobId: string): Promise<SyncJob> {
    return (await (await this.request(`sync/${encodeURIComponent(jobId)}`, { method: 'DELETE' })).json()) as SyncJob;
  }

  private path(route: string, query: Record<string, string>): string {
    return `${route}?${new URLSearchParams(query).toString()}`;
  }

  /** Sends a request with the tab's key; on 401/403 asks for a key and sends it again. */
  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    for (;;) {
      const key = accessKey.get();
      const headers = new Headers(init.headers);
      if (key) headers.set(this.authHeader, key);
      let res: Response;
      try {
        res = await fetch(`${this.baseUrl}${path}`, { ...init, headers });
      } catch (error) {
        throw new ApiError(0, `the service could not be reached (${(error as Error).message})`);
      }
      if (res.ok) return res;
      const problem = await readProblem(res);
      // A 403 with a code of its own (a folder outside KM_SYNC_ROOTS) is no matter of keys.
      const keyProblem = res.status === 401 || (res.status === 403 && (problem.code === undefined || problem.code === 'forbidden'));
      if (!keyProblem) throw new ApiError(res.status, problem.detail, problem.code);
      // Another request may have been given a new key meanwhile: try that one first.
      if (accessKey.get() !== key) continue;
      // The service's detail says how it reads the key (which header, which forms).
      const reason =
        res.status === 401 ? `This service needs an access key: ${problem.detail}.` : `The access key was not accepted: ${problem.detail}.`;
      this.pendingKey ??= this.askForKey(reason).finally(() => {
        this.pendingKey = undefined;
      });
      const given = await this.pendingKey;
      if (!given) {
        // Cancelled: the refused key is not sent again (and each request waiting tells its own refusal).
        if (accessKey.get() === key) accessKey.clear();
        throw new ApiError(res.status, problem.detail, problem.code);
      }
      accessKey.set(given);
    }
  }
}

function json(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

async function readProblem(res: Response): Promise<{ detail: string; code?: string }> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<Record<keyof ProblemDetails, unknown>>;
    const detail = typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : text;
    return { detail: detail || `HTTP ${res.status}`, ...(typeof body.code === 'string' ? { code: body.code } : {}) };
  } catch {
    return { detail: text || `HTTP ${res.status}` };
  }
}
