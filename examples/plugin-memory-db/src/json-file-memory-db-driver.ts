import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IndexNotFoundError, KmError, type MemoryFilter, type MemoryRecord, type TagCollection } from '@km/core';
import {
  type CheckedRecord,
  compareRecordIds,
  cosineSimilarity,
  type DriverList,
  type DriverSearch,
  matchesCondition,
  type MemoryDbDriver,
} from '@km/core/connector';

/** One index as stored: `{directory}/{index}.json`. */
interface IndexFile {
  vectorSize: number;
  records: Record<string, { vector: number[]; tags: TagCollection; payloadJson: string }>;
}

/**
 * A memory DB driver that keeps each index in one JSON file: read whole, written whole (to a
 * temporary file, then renamed). For small memories and for learning how a connector is built:
 * core's `MemoryDb` wrapper validates names, records and vector sizes, ranks and cuts results.
 */
export class JsonFileMemoryDbDriver implements MemoryDbDriver {
  readonly name = 'jsonfile';

  constructor(private readonly directory: string) {}

  async vectorSize(index: string): Promise<number | undefined> {
    return (await this.read(index))?.vectorSize;
  }

  async createIndex(index: string, vectorSize: number): Promise<void> {
    const existing = await this.read(index);
    if (existing && existing.vectorSize !== vectorSize) {
      throw new KmError(
        'vector_size_mismatch',
        `[km] [jsonfile] index "${index}" has vector size ${existing.vectorSize}, got ${vectorSize}`,
      );
    }
    if (!existing) await this.write(index, { vectorSize, records: {} });
  }

  async listIndexes(): Promise<string[]> {
    await mkdir(this.directory, { recursive: true });
    return (await readdir(this.directory)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  }

  async deleteIndex(index: string): Promise<void> {
    await rm(this.file(index), { force: true });
  }

  async upsertBatch(index: string, records: CheckedRecord[]): Promise<void> {
    const data = await this.existing(index);
    for (const r of records) data.records[r.id] = { vector: Array.from(r.vector), tags: r.tags, payloadJson: r.payloadJson };
    await this.write(index, data);
  }

  async search(index: string, query: DriverSearch): Promise<Array<[MemoryRecord, number]>> {
    const data = await this.existing(index);
    const vector = query.vector ?? [];
    return Object.entries(data.records)
      .filter(([, r]) => matches(r.tags, query.filters))
      .map(([id, r]) => [toRecord(id, r, query.withEmbeddings), cosineSimilarity(vector, r.vector)] as [MemoryRecord, number])
      .filter(([, score]) => score >= query.minRelevance);
  }

  async *list(index: string, query: DriverList): AsyncIterable<MemoryRecord> {
    const data = await this.existing(index);
    const ids = Object.keys(data.records)
      .filter((id) => matches(data.records[id]!.tags, query.filters))
      .sort(compareRecordIds);
    for (const id of query.limit !== undefined ? ids.slice(0, query.limit) : ids)
      yield toRecord(id, data.records[id]!, query.withEmbeddings);
  }

  async delete(index: string, id: string): Promise<void> {
    const data = await this.existing(index);
    if (!(id in data.records)) return;
    delete data.records[id];
    await this.write(index, data);
  }

  private file(index: string): string {
    return join(this.directory, `${index}.json`);
  }

  private async read(index: string): Promise<IndexFile | undefined> {
    try {
      return JSON.parse(await readFile(this.file(index), 'utf8')) as IndexFile;
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async existing(index: string): Promise<IndexFile> {
    const data = await this.read(index);
    if (!data) throw new IndexNotFoundError(index);
    return data;
  }

  private async write(index: string, data: IndexFile): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const temporary = `${this.file(index)}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(data));
    await rename(temporary, this.file(index));
  }
}

/** Filters are OR'd; the conditions of one filter are AND'd. */
function matches(tags: TagCollection, filters: readonly MemoryFilter[]): boolean {
  return filters.length === 0 || filters.some((f) => f.conditions.every((c) => matchesCondition(tags, c)));
}

function toRecord(id: string, r: IndexFile['records'][string], withEmbeddings: boolean): MemoryRecord {
  return {
    id,
    vector: withEmbeddings ? r.vector : [],
    tags: structuredClone(r.tags),
    payload: JSON.parse(r.payloadJson) as Record<string, unknown>,
  };
}
