import type { IContentDecoder } from '../contracts/content-decoder.js';
import { HtmlDecoder } from './html-decoder.js';
import { JsonDecoder } from './json-decoder.js';
import { MarkdownDecoder } from './markdown-decoder.js';
import { PlainTextDecoder } from './plain-text-decoder.js';

/**
 * Decoders by MIME type. Later registrations win, so a package can replace a built-in.
 *
 * ```ts
 * const registry = DecoderRegistry.withDefaults().register(new MyPdfDecoder());
 * ```
 */
export class DecoderRegistry {
  private readonly decoders: IContentDecoder[] = [];

  /** A registry with the decoders of core: text, markdown, HTML, JSON. */
  static withDefaults(): DecoderRegistry {
    return new DecoderRegistry()
      .register(new PlainTextDecoder())
      .register(new MarkdownDecoder())
      .register(new HtmlDecoder())
      .register(new JsonDecoder());
  }

  register(decoder: IContentDecoder): this {
    this.decoders.unshift(decoder);
    return this;
  }

  /** The decoder for a MIME type, or undefined. */
  find(mimeType: string): IContentDecoder | undefined {
    return this.decoders.find((d) => d.supportsMimeType(mimeType));
  }
}
