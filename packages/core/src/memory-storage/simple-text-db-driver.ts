import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { matchesFilters } from '../models/memory-filter.js';
import type { MemoryRecord } from '../models/memory-record.js';
import { cloneTags, type TagCollection } from '../models/tag-collection.js';
import { LogBackedDriver, type LogBackedDriverOptions } from './log-backed-driver.js';
import type { DriverList, DriverSearch, MemoryDbDriver } from './memory-db-driver.js';
import type { CheckedRecord } from './record-input.js';
import { RecordLog } from './record-log.js';
import { compareRecordIds } from './result-order.js';

const CONNECTOR = 'simple-text-db';
const WORD = /[\p{L}\p{N}]+/gu;

/** Options of {@link SimpleTextDbDriver}. */
export type SimpleTextDbDriverOptions = LogBackedDriverOptions;

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
 * The driver of {@link SimpleTextDb}: records in memory (and, with a directory, an append-only
 * log per index); a search returns the records whose `payload.text` contains the query's words,
 * scored by the share of the query's distinct words found.
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
      for (const r of records) target.records.set(r.id, toEntry(r.id, r.tags, r.payloadJson));
    });
  }

  async search(name: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const words = [...new Set(query.text?.toLowerCase().match(WORD) ?? [])];
    const target = this.indexes.get(name);
    if (!target || words.length === 0) return [];
    const scored: Array<[MemoryRecord, number]> = [];
    for (const entry of target.records.values()) {
      if (!matchesFilters(entry.tags, query.filters)) continue;
      const found = words.filter((w) => entry.words.has(w)).length;
      if (found > 0) scored.push([toRecord(entry), found / words.length]);
    }
    return scored;
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
    });
  }

  protected async loadIndex(name: string): Promise<TextIndex> {
    const log = new RecordLog(join(this.directory!, name), this.durable);
    const records = new Map<string, TextEntry>();
    for (const e of await log.load()) {
      if (e.op === 'delete') records.delete(e.id);
      else records.set(e.record.id, toEntry(e.record.id, e.record.tags as TagCollection, e.record.payloadJson));
    }
    this.reportCut(name, log);
    return { records, log };
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
