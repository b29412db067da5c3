import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import { MimeTypes } from '../models/constants.js';
import { baseMimeType } from './mime-types.js';
import { decodeUtf8Text } from './text-bytes.js';

/** Plain text (and CSV, logs): one section, as is. */
export class PlainTextDecoder implements IContentDecoder {
  readonly name = 'text';

  supportsMimeType(mimeType: string): boolean {
    const base = baseMimeType(mimeType);
    return base === MimeTypes.plainText || base === 'text/csv';
  }

  async decode(data: Buffer, options?: { fileName?: string }): Promise<ExtractedContent> {
    return { mimeType: MimeTypes.plainText, sections: [{ number: 0, text: decodeUtf8Text(data, options?.fileName) }] };
  }
}
