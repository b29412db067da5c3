import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import { MimeTypes } from '../models/constants.js';
import { baseMimeType } from './mime-types.js';
import { decodeUtf8Text } from './text-bytes.js';

/** Markdown: kept as markdown, so the partitioner can split at headings. */
export class MarkdownDecoder implements IContentDecoder {
  readonly name = 'markdown';

  supportsMimeType(mimeType: string): boolean {
    const base = baseMimeType(mimeType);
    return base === MimeTypes.markdown || base === 'text/x-markdown';
  }

  async decode(data: Buffer, options?: { fileName?: string }): Promise<ExtractedContent> {
    return { mimeType: MimeTypes.markdown, sections: [{ number: 0, text: decodeUtf8Text(data, options?.fileName) }] };
  }
}
