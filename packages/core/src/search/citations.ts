import { ReservedTags } from '../models/constants.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import type { Citation } from '../models/search-models.js';

function firstTag(record: MemoryRecord, key: string): string {
  return record.tags[key]?.find((v): v is string => typeof v === 'string') ?? '';
}

/**
 * Groups matched records into citations, one per source file, keeping the order of first
 * appearance (most relevant first) and each citation's partitions in relevance order.
 */
export class CitationCollector {
  private readonly byFile = new Map<string, Citation>();

  constructor(private readonly index: string) {}

  add(record: MemoryRecord, relevance: number): Citation {
    const documentId = firstTag(record, ReservedTags.documentId);
    const fileId = firstTag(record, ReservedTags.fileId);
    const key = `${documentId}/${fileId}`;
    let citation = this.byFile.get(key);
    if (!citation) {
      const url = record.payload[PayloadFields.url];
      citation = {
        link: `${this.index}/${documentId}/${fileId}`,
        index: this.index,
        documentId,
        fileId,
        sourceContentType: firstTag(record, ReservedTags.fileType),
        sourceName: String(record.payload[PayloadFields.file] ?? ''),
        ...(typeof url === 'string' && url ? { sourceUrl: url } : {}),
        partitions: [],
      };
      this.byFile.set(key, citation);
    }
    citation.partitions.push({
      text: String(record.payload[PayloadFields.text] ?? ''),
      relevance,
      partitionNumber: Number(firstTag(record, ReservedTags.partitionNumber)) || 0,
      sectionNumber: Number(firstTag(record, ReservedTags.sectionNumber)) || 0,
      lastUpdate: String(record.payload[PayloadFields.lastUpdate] ?? ''),
      tags: record.tags,
    });
    return citation;
  }

  get citations(): Citation[] {
    return [...this.byFile.values()];
  }
}
