import { resolve, join } from 'node:path';
import { mkdir, rm } from 'node:fs/promises';
import type { IMemoryDb, ListOptions, MemoryDbCapabilities, SimilarityOptions } from '../contracts/memory-db.js';
import { InvalidInputError } from '../errors/km-error.js';
import { matchesFilters } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { cloneTags, type TagCollection } from '../models/tag-collection.js';
import { KeyedMutex } from '../util/keyed-mutex.js';
import { normalizeIndexName } from '../validation/index-name.js';
import { listIndexFolders } from './index-folders.js';
import { searchLimit } from './search-limit.js';
import { RecordLog } from './record-log.js';
import { checkRecord } from './record-input.js';
import { RecordLossNotifier, type RecordLoss, type RecordLossSource } from './record-loss.js';
import type { Logger } from '../util/logger.js';

const CONNECTOR = 'simple-text-db';
const WORD = /[\p{L}\p{N}]+/gu;

/** Options of {@link SimpleTextDb}. */
export interface SimpleTextDbOptions {
  /** Folder that persists every index; volatile when missing. */
  directory?: string;
  /** @default true */
  durable?: boolean;
  /** Results of a search when its limit is `<= 0`. @default 1000 */
  maxSearchResults?: number;
  /** Where a torn log tail cut on load is reported, with the record ids it dropped. @default a process warning */
  logger?: Logger;
}

interface TextEntry {
  id: string;
  tags: TagCollection;
  payloadJson: string;
  words: Set<string>;
}

interface TextIndex {
  records: Map<string, TextEntry>;
  log: RecordLog | undefined;
}

/**
 * A memory DB without embeddings, as Kernel Memory's SimpleTextDb: a search returns the
 * records whose `payload.text` contains the query's words. Relevance is the share of the
 * query's distinct words found (not a cosine). Useful to run the pipeline with no model.
 */
export class SimpleTextDb implements IMemoryDb, RecordLossSource {
  readonly name = CONNECTOR;
  readonly capabilities: MemoryDbCapabilities = { nativeBatch: true, negatedFilters: true, vectorSearch: false };
  private readonly directory: string | undefined;
  private readonly durable: boolean;
  private readonly maxSearchResults: number;
  private readonly indexes = new Map<string, TextIndex>();
  private readonly mutex = new KeyedMutex();
  private loading: Promise<void> | undefined;
  private readonly losses: RecordLossNotifier;

  constructor(options: SimpleTextDbOptions = {}) {
    this.losses = new RecordLossNotifier(options.logger);
    this.directory = options.directory === undefined ? undefined : resolve(options.directory);
    this.durable = options.durable ?? true;
    this.maxSearchResults = options.maxSearchResults ?? 1000;
  }

  async createIndex(index: string, _vectorSize: number): Promise<void> {
    const name = normalizeIndexName(index);
    await this.ready();
    await this.mutex.run(name, async () => void (await this.open(name)));
  }

  async getIndexes(): Promise<string[]> {
    await this.ready();
    return [...this.indexes.keys()].sort();
  }

  async deleteIndex(index: string): Promise<void> {
    const name = normalizeIndexName(index);
    await this.ready();
    await this.mutex.run(name, async () => {
      await this.indexes.get(name)?.log?.close();
      this.indexes.delete(name);
      if (this.directory) await rm(join(this.directory, name), { recursive: true, force: true });
    });
  }

  async upsert(index: string, record: MemoryRecord): Promise<string> {
    return (await this.upsertBatch(index, [record]))[0]!;
  }

  async upsertBatch(index: string, records: MemoryRecord[]): Promise<string[]> {
    const name = normalizeIndexName(index);
    const checked = records.map((r) => checkRecord(r, CONNECTOR));
    await this.ready();
    return this.mutex.run(name, async () => {
      const target = await this.open(name);
      await target.log?.append(
        checked.map((r) => ({ op: 'upsert', record: { id: r.id, tags: r.tags, payloadJson: r.payloadJson }, vector: undefined })),
      );
      for (const r of checked) target.records.set(r.id, toEntry(r.id, r.tags, r.payloadJson));
      return checked.map((r) => r.id);
    });
  }

  async *getSimilarList(
    index: string,
    query: string | Float32Array | number[],
    options: SimilarityOptions = {},
  ): AsyncIterable<[MemoryRecord, number]> {
    const name = normalizeIndexName(index);
    if (typeof query !== 'string') {
      throw new InvalidInputError('invalid_argument', 'SimpleTextDb searches by text; it cannot take a vector query', {
        connector: CONNECTOR,
      });
    }
    await this.ready();
    const target = this.indexes.get(name);
    if (!target) return;
    const words = [...new Set(query.toLowerCase().match(WORD) ?? [])];
    if (words.length === 0) return;
    const min = options.minRelevance ?? 0;
    const limit = searchLimit(options.limit, this.maxSearchResults);
    const scored: Array<[TextEntry, number]> = [];
    for (const entry of target.records.values()) {
      if (!matchesFilters(entry.tags, options.filters)) continue;
      const found = words.filter((w) => entry.words.has(w)).length;
      const score = found / words.length;
      if (found > 0 && score >= min) scored.push([entry, score]);
    }
    scored.sort((a, b) => b[1] - a[1] || (a[0].id < b[0].id ? -1 : 1));
    for (const [entry, score] of scored.slice(0, limit)) yield [toRecord(entry), score];
  }

  async *getList(index: string, options: ListOptions = {}): AsyncIterable<MemoryRecord> {
    const name = normalizeIndexName(index);
    await this.ready();
    const target = this.indexes.get(name);
    if (!target) return;
    const matching = [...target.records.values()]
      .filter((e) => matchesFilters(e.tags, options.filters))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const limit = options.limit ?? 0;
    for (const entry of limit > 0 ? matching.slice(0, limit) : matching) yield toRecord(entry);
  }

  async delete(index: string, record: { id: string }): Promise<void> {
    const name = normalizeIndexName(index);
    await this.ready();
    await this.mutex.run(name, async () => {
      const target = this.indexes.get(name);
      if (!target?.records.has(record.id)) return;
      await target.log?.append([{ op: 'delete', id: record.id }]);
      target.records.delete(record.id);
    });
  }

  async close(): Promise<void> {
    for (const t of this.indexes.values()) await t.log?.close();
  }

  /** Reports the records lost to a torn log tail cut on load (see `SimpleVectorDb.onRecordsLost`). */
  onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    return this.losses.onRecordsLost(listener);
  }

  private ready(): Promise<void> {
    this.loading ??= this.loadAll();
    return this.loading;
  }

  private async loadAll(): Promise<void> {
    if (!this.directory) return;
    for (const name of await listIndexFolders(this.directory)) {
      const log = new RecordLog(join(this.directory, name), this.durable);
      const records = new Map<string, TextEntry>();
      for (const e of await log.load()) {
        if (e.op === 'delete') records.delete(e.id);
        else records.set(e.record.id, toEntry(e.record.id, e.record.tags as TagCollection, e.record.payloadJson));
      }
      if (log.lastCut)
        this.losses.report({ connector: CONNECTOR, index: name, bytes: log.lastCut.bytes, recordIds: log.lastCut.recordIds });
      this.indexes.set(name, { records, log });
    }
  }

  private async open(name: string): Promise<TextIndex> {
    let target = this.indexes.get(name);
    if (!target) {
      let log: RecordLog | undefined;
      if (this.directory) {
        await mkdir(join(this.directory, name), { recursive: true });
        log = new RecordLog(join(this.directory, name), this.durable);
      }
      target = { records: new Map(), log };
      this.indexes.set(name, target);
    }
    return target;
  }
}

function toEntry(id: string, tags: TagCollection, payloadJson: string): TextEntry {
  const payload = JSON.parse(payloadJson) as { text?: unknown };
  const text = typeof payload.text === 'string' ? payload.text : '';
  return { id, tags, payloadJson, words: new Set(text.toLowerCase().match(WORD) ?? []) };
}

function toRecord(entry: TextEntry): MemoryRecord {
  return { id: entry.id, vector: [], tags: cloneTags(entry.tags), payload: JSON.parse(entry.payloadJson) as Record<string, unknown> };
}
