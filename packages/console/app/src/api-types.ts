/** The shapes of the km service's answers that the console reads (Kernel Memory's field names). */

export interface CitationPartition {
  text: string;
  relevance: number;
  partitionNumber: number;
  /** The page of a PDF, the section of other formats; 0 when the format has none. */
  sectionNumber: number;
  lastUpdate: string;
  tags: Record<string, Array<string | null>>;
}

export interface Citation {
  link: string;
  index: string;
  documentId: string;
  fileId: string;
  sourceContentType: string;
  sourceName: string;
  sourceUrl?: string;
  partitions: CitationPartition[];
}

export interface SearchResult {
  query: string;
  noResult: boolean;
  results: Citation[];
}

export interface MemoryAnswer {
  streamState?: 'error' | 'reset' | 'append' | 'last';
  question: string;
  noResult: boolean;
  noResultReason?: string;
  text: string;
  relevantSources: Citation[];
}

export interface DocumentStatus {
  completed: boolean;
  failed: boolean;
  empty: boolean;
  index: string;
  document_id: string;
  tags: Record<string, Array<string | null>>;
  creation: string;
  last_update: string;
  steps: string[];
  remaining_steps: string[];
  completed_steps: string[];
  error?: string;
  failed_files?: Array<{ name: string; error: string }>;
}

export interface UploadAccepted {
  index: string;
  documentId: string;
  message: string;
}
