import { MimeTypes } from '../models/constants.js';
import { TextFormatDecoder } from './text-format-decoder.js';

/** Markdown: kept as markdown, so the partitioner can split at headings. */
export class MarkdownDecoder extends TextFormatDecoder {
  constructor() {
    super({ name: 'markdown', reads: (type) => type === MimeTypes.markdown || type === 'text/x-markdown', gives: MimeTypes.markdown });
  }
}
