import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { matchesFilters } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { cloneTags, type TagCollection } from '../models/tag-collection.js';
import { Bm25Index } from '../text-search/bm25-index.js';
import { LogBackedDriver, type LogBackedDriverOptions } from './log-backed-driver.js';
import type { DriverLexicalSearch, DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import { partitionText } from './partition-text.js';
import type { CheckedRecord } from './record-input.js';
import { RecordLog } from '@km/embedded-engine/record-log';
import { compareRecordIds } from './result-order.js';

const CONNECTOR = 'simple-text-db';

/** Options of {@link SimpleTextDbDriver}. */
export type SimpleTextDbDriverOptions = LogBackedDriverOptions;

interface TextEntry {
  id: string;
  tags: TagCollection;
  payloadJson: string;
}

interface TextIndex {
  records: Map<string, TextEntry>;
  /** BM25 over each record's `payload.text`, rebuilt from the log on load. */
  words: Bm25Index;
  log: RecordLog | undefined;
}

/**
 * The driver of {@link SimpleTextDb}: records in memory (and, with a directory, an append-only
 * log per index); a search returns the records whose `payload.text` contains the query's words,
 * ranked by BM25 (`Bm25Index`: score in [0, 1), the BM25 sum over its upper bound for the query).
 */
export class SimpleTextDbDriver extends LogBackedDriver<TextIndex> implements MemoryDbDriver {
  readonly name = CONNECTOR;
  readonly capabilities = { vectorSearch: false, createsIndexOnUpsert: true };

  async vectorSize(name: string): Promise<number | undefined> {
    await this.ready();
    return this.indexes.has(name) ? 0 : undefined;
  }

  async createIndex(name: string): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => void (await this.open(name)));
  }

  async listIndexes(): Promise<string[]> {
    await this.ready();
    return [...this.indexes.keys()];
  }

  async upsertBatch(name: string, records: CheckedRecord[]): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => {
      const target = await this.open(name);
      await target.log?.append(
        records.map((r) => ({ op: 'upsert', record: { id: r.id, tags: r.tags, payloadJson: r.payloadJson }, vector: undefined })),
      );
      for (const r of records) put(target, r.id, r.tags, r.payloadJson);
    });
  }

  /** The same as {@link lexicalSearch}: this store ranks by words only. */
  async search(name: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    return this.lexicalSearch(name, { ...query, text: query.text ?? '' });
  }

  /** BM25 over the partition text of the records matching the filters. */
  async lexicalSearch(name: string, query: DriverLexicalSearch): Promise<Array<[MemoryRecord, number]>> {
    const target = this.indexes.get(name);
    if (!target) return [];
    const { filters } = query;
    const accept = filters.length === 0 ? undefined : (id: string) => matchesFilters(target.records.get(id)!.tags, filters);
    return target.words.search(query.text, { limit: query.limit, accept }).map(([id, score]) => [toRecord(target.records.get(id)!), score]);
  }

  async *list(name: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const target = this.indexes.get(name);
    if (!target) return;
    const matching = [...target.records.values()]
      .filter((e) => matchesFilters(e.tags, query.filters))
      .sort((a, b) => compareRecordIds(a.id, b.id));
    for (const entry of query.limit !== undefined ? matching.slice(0, query.limit) : matching) yield toRecord(entry);
  }

  async delete(name: string, id: string): Promise<void> {
    await this.ready();
    await this.mutex.run(name, async () => {
      const target = this.indexes.get(name);
      if (!target?.records.has(id)) return;
      await target.log?.append([{ op: 'delete', id }]);
      target.records.delete(id);
      target.words.remove(id);
    });
  }

  protected async loadIndex(name: string): Promise<TextIndex> {
    const log = new RecordLog(join(this.directory!, name), this.durable);
    const target = emptyTextIndex(log);
    for (const e of await log.load()) {
      if (e.op === 'upsert') put(target, e.record.id, e.record.tags as TagCollection, e.record.payloadJson);
      else if (target.records.delete(e.id)) target.words.remove(e.id);
    }
    this.reportCut(name, log);
    return target;
  }

  private async open(name: string): Promise<TextIndex> {
    let target = this.indexes.get(name);
    if (!target) {
      let log: RecordLog | undefined;
      if (this.directory) {
        await mkdir(join(this.directory, name), { recursive: true });
        log = new RecordLog(join(this.directory, name), this.durable);
      }
      target = emptyTextIndex(log);
      this.indexes.set(name, target);
    }
    return target;
  }
}

function put(target: TextIndex, id: string, tags: TagCollection, payloadJson: string): void {
  target.records.set(id, { id, tags, payloadJson });
  target.words.add(id, partitionText(payloadJson));
}

function toRecord(entry: TextEntry): MemoryRecord {
  return { id: entry.id, vector: [], tags: cloneTags(entry.tags), payload: JSON.parse(entry.payloadJson) as Record<string, unknown> };
}

/** A text index with no records; its words count the records (blank ones included), each added to both. */
function emptyTextIndex(log: RecordLog | undefined): TextIndex {
  const records: TextIndex['records'] = new Map();
  return { records, words: new Bm25Index({ documentCount: () => records.size }), log };
}
