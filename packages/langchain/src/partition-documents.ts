import { Document } from '@langchain/core/documents';
import { RESERVED_TAG_PREFIX, type SearchResult, type TagCollection } from '@km/core';

/** Metadata of a Document built from a km partition. */
export interface KernelMemoryDocumentMetadata {
  /** The km document the partition belongs to. */
  documentId: string;
  /** The file inside the document. */
  fileId: string;
  /** Name of the source file (`content.txt` for imported text). */
  fileName: string;
  /** Content type of the source file, e.g. `text/plain`, `application/pdf`. */
  sourceContentType: string;
  /** The index searched. */
  index: string;
  /** `{index}/{documentId}/{fileId}`: usable with `exportFile` and the service's `GET /download`. */
  link: string;
  /** Where the source can be read: the page URL of a web page, else the service's download link. */
  sourceUrl?: string;
  /** Position of the partition in its file, from 0. */
  partitionNumber: number;
  /** Cosine similarity of query and partition, in [-1, 1] (lexical search: its score in [0, 1]). */
  relevance: number;
  /** Page of a PDF, from 1; absent for other formats. */
  page?: number;
  /** Section of a non-PDF source that has sections, from 1; absent otherwise. */
  section?: number;
  /** When the partition was stored (ISO 8601). */
  lastUpdate: string;
  /** The document's own tags (km's reserved `__` tags left out). */
  tags: TagCollection;
}

/** A LangChain Document with km's metadata. */
export type KernelMemoryDocument = Document<KernelMemoryDocumentMetadata>;

function userTags(tags: TagCollection): TagCollection {
  const out: TagCollection = {};
  for (const [key, values] of Object.entries(tags)) if (!key.startsWith(RESERVED_TAG_PREFIX)) out[key] = [...values];
  return out;
}

/**
 * One Document per matching partition, with its relevance, most relevant first (ties keep
 * km's order). The Document's `id` is `{link}#{partitionNumber}`.
 */
export function partitionDocuments(result: SearchResult): Array<[KernelMemoryDocument, number]> {
  const out: Array<[KernelMemoryDocument, number]> = [];
  for (const citation of result.results) {
    const isPdf = citation.sourceContentType === 'application/pdf';
    for (const partition of citation.partitions) {
      const metadata: KernelMemoryDocumentMetadata = {
        documentId: citation.documentId,
        fileId: citation.fileId,
        fileName: citation.sourceName,
        sourceContentType: citation.sourceContentType,
        index: citation.index,
        link: citation.link,
        ...(citation.sourceUrl ? { sourceUrl: citation.sourceUrl } : {}),
        partitionNumber: partition.partitionNumber,
        relevance: partition.relevance,
        ...(partition.sectionNumber > 0 ? { [isPdf ? 'page' : 'section']: partition.sectionNumber } : {}),
        lastUpdate: partition.lastUpdate,
        tags: userTags(partition.tags),
      };
      const document = new Document({ pageContent: partition.text, metadata, id: `${citation.link}#${partition.partitionNumber}` });
      out.push([document, partition.relevance]);
    }
  }
  return out.sort((a, b) => b[1] - a[1]);
}
