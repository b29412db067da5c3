import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, vi } from 'vitest';
import type {
  DataPipelineStatus,
  IContentStorage,
  IMemoryDb,
  ITextEmbeddingGenerator,
  ITextGenerator,
  MemoryRecord,
  SimilarityOptions,
  MemoryServerless,
  MemoryService,
  TextGenerationOptions,
} from '../src/index.js';
import {
  CL100KTokenizer,
  HashingEmbeddingGenerator,
  isKmError,
  KernelMemoryBuilder,
  MemoryContentStorage,
  SimpleVectorDb,
  silentLogger,
} from '../src/index.js';

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export async function allRecords(db: IMemoryDb, index = 'default'): Promise<MemoryRecord[]> {
  return collect(db.getList(index, { limit: 0 }));
}

/**
 * A scripted text generator: answers with `reply(prompt)` in small pieces and records the
 * prompts it saw. It stands in for an LLM (no backend claim is made with it).
 */
export class ScriptedTextGenerator implements ITextGenerator {
  readonly maxTokenTotal: number;
  readonly modelName = 'scripted';
  readonly tokenizer = new CL100KTokenizer();
  readonly prompts: string[] = [];

  constructor(
    private readonly reply: (prompt: string) => string,
    maxTokenTotal = 4096,
  ) {
    this.maxTokenTotal = maxTokenTotal;
  }

  async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    this.prompts.push(prompt);
    const text = this.reply(prompt);
    for (let i = 0; i < text.length; i += 7) yield text.slice(i, i + 7);
    options.onUsage?.({ timestamp: new Date().toISOString(), serviceTokensIn: 11, serviceTokensOut: 5 });
  }
}

/**
 * What a test file's tests leave behind: services to stop after each test and folders to
 * remove after the file. Registers the hooks that do it; tests push onto the lists.
 */
export function cleanupAfterTests(): { dirs: string[]; services: MemoryService[] } {
  const dirs: string[] = [];
  const services: MemoryService[] = [];
  afterEach(async () => {
    for (const s of services.splice(0)) await s.stop({ drainTimeoutMs: 0 });
  });
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return { dirs, services };
}

/**
 * Makes folders under the OS temp folder, named `prefix…`, for the tests of a file, and removes
 * them after the file's tests. Returns the function that makes one.
 */
export function useTempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return async () => {
    const d = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** The parts of {@link inMemoryBuilder} a test chooses; the others are the defaults. */
export interface InMemoryParts {
  /** @default a HashingEmbeddingGenerator */
  embeddingGenerator?: ITextEmbeddingGenerator;
  /** @default a SimpleVectorDb kept in memory */
  memoryDb?: IMemoryDb;
  /** @default a MemoryContentStorage */
  contentStorage?: IContentStorage;
}

/**
 * A builder that keeps everything in memory and logs nothing: hashing embeddings, a
 * SimpleVectorDb and a MemoryContentStorage, unless `parts` names others. Chain more `with…`
 * calls on it (another `withMemoryDb` adds a DB after the first).
 */
export function inMemoryBuilder(parts: InMemoryParts = {}): KernelMemoryBuilder {
  return new KernelMemoryBuilder()
    .withEmbeddingGenerator(parts.embeddingGenerator ?? new HashingEmbeddingGenerator())
    .withMemoryDb(parts.memoryDb ?? new SimpleVectorDb())
    .withContentStorage(parts.contentStorage ?? new MemoryContentStorage())
    .withLogger(silentLogger);
}

/**
 * A memory built by {@link inMemoryBuilder}, with its vector DB and content storage for the test
 * to look into; `configure` adds to the builder.
 */
export function inMemory(configure: (builder: KernelMemoryBuilder) => KernelMemoryBuilder = (b) => b): {
  memory: MemoryServerless;
  db: SimpleVectorDb;
  storage: MemoryContentStorage;
} {
  const db = new SimpleVectorDb();
  const storage = new MemoryContentStorage();
  const memory = configure(inMemoryBuilder({ memoryDb: db, contentStorage: storage })).build();
  return { memory, db, storage };
}

/** The code of the KmError `fn` throws; undefined when it returns, a description of anything else it throws. */
export function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return isKmError(e) ? e.code : `not a KmError: ${String(e)}`;
  }
}

/** The code of the KmError `promise` rejects with; undefined when it resolves, a description of anything else. */
export async function rejectedCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (e) {
    return isKmError(e) ? e.code : `not a KmError: ${String(e)}`;
  }
}

/** A memory on disk (content storage and SimpleVectorDb under `data`) with hashing embeddings. */
export function diskMemory(data: string): MemoryServerless {
  return new KernelMemoryBuilder()
    .withDataDirectory(data)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withLogger(silentLogger)
    .build();
}

/** Waits, 10 s at most, polling every `intervalMs`, until the document's status says completed and not failed. */
export function waitUntilCompleted(
  memory: { getDocumentStatus(documentId: string): Promise<DataPipelineStatus | null> },
  documentId: string,
  intervalMs: number,
): Promise<void> {
  return vi.waitFor(async () => expect(await memory.getDocumentStatus(documentId)).toMatchObject({ completed: true, failed: false }), {
    timeout: 10_000,
    interval: intervalMs,
  });
}

/**
 * A memory DB for search tests: holds nothing (writes are no-ops, listings empty); a subclass
 * says what a similarity search returns.
 */
export abstract class SearchOnlyDb implements IMemoryDb {
  async createIndex(): Promise<void> {}
  async getIndexes(): Promise<string[]> {
    return [];
  }
  async deleteIndex(): Promise<void> {}
  async upsert(_: string, r: MemoryRecord): Promise<string> {
    return r.id;
  }
  async *getSimilarList(
    _: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    yield* await this.matches(query, options);
  }
  /** What a similarity search returns, best first. */
  protected abstract matches(query: string | Float32Array | number[], options: SimilarityOptions): Promise<Array<[MemoryRecord, number]>>;
  async *getList(): AsyncIterable<MemoryRecord> {}
  async delete(): Promise<void> {}
}

/**
 * Makes the next file write of the process (any `FileHandle.write`) fail half way, as on a full
 * disk: half its bytes reach the file, then it rejects with ENOSPC. `directory` takes a probe
 * file (to reach the handles' shared prototype). Returns the spy: `mockRestore()` it after.
 */
export async function failNextFileWriteHalfWay(directory: string) {
  const probe = await open(join(directory, 'probe'), 'w');
  const handles = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const realWrite = handles.write;
  return vi.spyOn(handles, 'write').mockImplementationOnce(async function (this: unknown, data: unknown) {
    const bytes = data as Buffer;
    await realWrite.call(this, bytes.subarray(0, bytes.length >> 1));
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  });
}
