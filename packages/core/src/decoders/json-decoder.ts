import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import { KmError } from '../errors/km-error.js';
import { MimeTypes } from '../models/constants.js';
import { baseMimeType } from './mime-types.js';
import { decodeUtf8Text } from './text-bytes.js';

/** JSON: validated and pretty-printed, one property per line, so chunks stay readable. */
export class JsonDecoder implements IContentDecoder {
  readonly name = 'json';

  supportsMimeType(mimeType: string): boolean {
    const base = baseMimeType(mimeType);
    return base === MimeTypes.json || base.endsWith('+json');
  }

  async decode(data: Buffer, options?: { fileName?: string }): Promise<ExtractedContent> {
    const text = decodeUtf8Text(data, options?.fileName);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new KmError('unsupported_content', `${options?.fileName ?? 'file'} is not valid JSON: ${(cause as Error).message}`, { cause });
    }
    return { mimeType: MimeTypes.plainText, sections: [{ number: 0, text: JSON.stringify(value, null, 2) }] };
  }
}
