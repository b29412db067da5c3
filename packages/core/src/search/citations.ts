import { ReservedTags } from '../models/constants.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import type { Citation } from '../models/search-models.js';

function firstTag(record: MemoryRecord, key: string): string {
  return record.tags[key]?.find((v): v is string => typeof v === 'string') ?? '';
}

/**
 * Where a partition's source can be read: the page URL of a web page, else the service's
 * download link, KM's `/download?index=…&documentId=…&filename=…` (values URL-encoded).
 */
export function sourceUrlOf(record: MemoryRecord, index: string): string {
  const url = record.payload[PayloadFields.url];
  if (typeof url === 'string' && url.trim() !== '') return url;
  const q = (v: string) => encodeURIComponent(v);
  const documentId = firstTag(record, ReservedTags.documentId);
  const fileName = String(record.payload[PayloadFields.file] ?? '');
  return `/download?index=${q(index)}&documentId=${q(documentId)}&filename=${q(fileName)}`;
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
    const key = citationKey(record);
    let citation = this.byFile.get(key);
    if (!citation) {
      citation = {
        link: `${this.index}/${documentId}/${fileId}`,
        index: this.index,
        documentId,
        fileId,
        sourceContentType: firstTag(record, ReservedTags.fileType),
        sourceName: String(record.payload[PayloadFields.file] ?? ''),
        sourceUrl: sourceUrlOf(record, this.index),
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

  /** The 1-based position, among {@link citations}, of the citation a record was added to; 0 when it was not. */
  numberOf(record: MemoryRecord): number {
    return [...this.byFile.keys()].indexOf(citationKey(record)) + 1;
  }
}

/** One citation per source file: its document and file ids. */
function citationKey(record: MemoryRecord): string {
  return `${firstTag(record, ReservedTags.documentId)}/${firstTag(record, ReservedTags.fileId)}`;
}
