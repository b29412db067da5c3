import { MimeTypes } from '../models/constants.js';
import { markdownTitle } from './document-title.js';
import { TextFormatDecoder } from './text-format-decoder.js';

/**
 * Markdown: kept as markdown, so the partitioner can split at headings. The title is the
 * front matter's `title:`, else a first heading of level 1.
 */
export class MarkdownDecoder extends TextFormatDecoder {
  constructor() {
    super({
      name: 'markdown',
      reads: (type) => type === MimeTypes.markdown || type === 'text/x-markdown',
      gives: MimeTypes.markdown,
      title: markdownTitle,
    });
  }
}
