import { RESERVED_TAG_PREFIX, type Citation, type TagCollection } from '@km/core';

/** One matching passage of a source, flat and JSON-serialisable, as tools return it. */
export interface MemoryCitation {
  /** The document the passage belongs to. */
  documentId: string;
  /** Name of the source file (`content.txt` for imported text, the page URL's file for web pages). */
  fileName: string;
  /** The index searched. */
  index: string;
  /** `{index}/{documentId}/{fileId}`: usable with `exportFile` and the service's `GET /download`. */
  link: string;
  /** Where the source can be read: the page URL of a web page, else the service's download link. */
  sourceUrl?: string;
  /** The partition's text. */
  text: string;
  /** Cosine similarity of query and passage, in [-1, 1] (lexical search: its score in [0, 1]). */
  relevance: number;
  /** Position of the partition in its file, from 0. */
  partitionNumber: number;
  /** Page of a PDF, from 1; absent for other formats. */
  page?: number;
  /** Section of a non-PDF source that has sections, from 1; absent otherwise. */
  section?: number;
  /** The document's own tags (km's reserved `__` tags left out). */
  tags: TagCollection;
}

/** The tags of a partition without km's reserved `__` keys. */
export function userTags(tags: TagCollection): TagCollection {
  const out: TagCollection = {};
  for (const [key, values] of Object.entries(tags)) if (!key.startsWith(RESERVED_TAG_PREFIX)) out[key] = [...values];
  return out;
}

/**
 * Flattens km citations (one per source file, each with its matching partitions) into one
 * passage per partition, most relevant first (ties keep km's order).
 *
 * ```ts
 * const found = await memory.search('distance to the moon');
 * for (const c of toMemoryCitations(found.results)) console.log(c.fileName, c.page, c.relevance);
 * ```
 */
export function toMemoryCitations(citations: readonly Citation[]): MemoryCitation[] {
  const out: MemoryCitation[] = [];
  for (const citation of citations) {
    const isPdf = citation.sourceContentType === 'application/pdf';
    for (const partition of citation.partitions) {
      const located = partition.sectionNumber > 0 ? { [isPdf ? 'page' : 'section']: partition.sectionNumber } : {};
      out.push({
        documentId: citation.documentId,
        fileName: citation.sourceName,
        index: citation.index,
        link: citation.link,
        ...(citation.sourceUrl ? { sourceUrl: citation.sourceUrl } : {}),
        text: partition.text,
        relevance: partition.relevance,
        partitionNumber: partition.partitionNumber,
        ...located,
        tags: userTags(partition.tags),
      });
    }
  }
  // Array.prototype.sort is stable: equal relevance keeps km's order.
  return out.sort((a, b) => b.relevance - a.relevance);
}

/** A short human label of a passage's source: `guide.pdf, page 3`, `notes.md, section 2`, `moon.txt`. */
export function sourceLabel(citation: Pick<MemoryCitation, 'fileName' | 'documentId' | 'page' | 'section'>): string {
  const name = citation.fileName || citation.documentId;
  if (citation.page !== undefined) return `${name}, page ${citation.page}`;
  if (citation.section !== undefined) return `${name}, section ${citation.section}`;
  return name;
}
