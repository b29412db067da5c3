import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import { MimeTypes } from '../models/constants.js';
import { baseMimeType } from './mime-types.js';
import { decodeUtf8Text } from './text-bytes.js';

/**
 * JSON: strict JSON is pretty-printed, one property per line, so chunks stay readable; anything
 * else (comments, trailing commas, as in settings files, or a truncated document) is indexed as
 * the text it is, as Kernel Memory indexes `.json` files. Only binary data fails.
 */
export class JsonDecoder implements IContentDecoder {
  readonly name = 'json';

  supportsMimeType(mimeType: string): boolean {
    const base = baseMimeType(mimeType);
    return base === MimeTypes.json || base.endsWith('+json');
  }

  async decode(data: Buffer, options?: { fileName?: string }): Promise<ExtractedContent> {
    const text = decodeUtf8Text(data, options?.fileName);
    return { mimeType: MimeTypes.plainText, sections: [{ number: 0, text: prettyJson(text) ?? text }] };
  }
}

/** The text pretty-printed when it is strict JSON, else undefined. */
function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}
