import type { ExtractedContent, IContentDecoder } from '../contracts/content-decoder.js';
import { baseMimeType } from './mime-types.js';
import { decodeUtf8Text } from './text-bytes.js';

/** A text format, as a {@link TextFormatDecoder} reads it. */
export interface TextFormat {
  /** Short name used in logs. */
  name: string;
  /** True for the MIME types of the format, given without parameters, in lower case. */
  reads: (baseType: string) => boolean;
  /** MIME type of the text the decoder gives. */
  gives: string;
  /** The text to index, from the file's text. @default the text as it is */
  convert?: (text: string) => string;
  /** The document's title, from the text to index. @default none */
  title?: (text: string) => string | undefined;
}

/**
 * A decoder of a text format: the file's text (UTF-8, byte-order mark dropped; binary data fails,
 * see `decodeUtf8Text`), turned by the format's `convert`, in one section numbered 0, with the
 * title the format's `title` finds in it.
 *
 * ```ts
 * const yaml = new TextFormatDecoder({ name: 'yaml', reads: (type) => type === 'application/yaml', gives: 'text/plain' });
 * ```
 */
export class TextFormatDecoder implements IContentDecoder {
  readonly name: string;

  constructor(private readonly format: TextFormat) {
    this.name = format.name;
  }

  supportsMimeType(mimeType: string): boolean {
    return this.format.reads(baseMimeType(mimeType));
  }

  async decode(data: Buffer, options?: { fileName?: string }): Promise<ExtractedContent> {
    const raw = decodeUtf8Text(data, options?.fileName);
    const text = this.format.convert?.(raw) ?? raw;
    const title = this.format.title?.(text);
    return { mimeType: this.format.gives, sections: [{ number: 0, text }], ...(title ? { title } : {}) };
  }
}
