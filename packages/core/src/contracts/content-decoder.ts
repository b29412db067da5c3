/** A section of extracted content, e.g. a page of a PDF. */
export interface ContentSection {
  /** 1-based section number (page, slide, sheet); 0 when the format has no sections. */
  number: number;
  text: string;
  /** True when the section ends where a sentence ends. */
  sentencesAreComplete?: boolean;
}

/** Text extracted from a file, section by section. */
export interface ExtractedContent {
  sections: ContentSection[];
  /** MIME type of the text: `text/plain` or `text/markdown`. */
  mimeType: string;
  /**
   * The document's title, when the content names one (a markdown `# ` heading or front-matter
   * `title:`, an HTML `<title>`, Office or PDF document properties, a plain-text title line). The
   * partitioner puts it first in the breadcrumb of every chunk. Never a generic file name.
   */
  title?: string;
}

/** Turns the bytes of one MIME type into text with sections. */
export interface IContentDecoder {
  /** Short name used in logs. */
  readonly name: string;
  /** True when this decoder reads the given MIME type. */
  supportsMimeType(mimeType: string): boolean;
  decode(data: Buffer, options?: { signal?: AbortSignal; fileName?: string }): Promise<ExtractedContent>;
}
