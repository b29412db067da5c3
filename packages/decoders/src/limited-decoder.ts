import type { ExtractedContent, IContentDecoder } from '@km/core';
import { checkFileSize, DEFAULT_LIMITS, type DecoderLimits } from './limits.js';

/**
 * What every decoder of this package shares: its limits (the defaults, overridden one by one),
 * the MIME types it reads, and the file size check made before any byte is read.
 * A decoder states its `name`, `format` and `mimeTypes` and implements {@link decodeWithinLimits}.
 *
 * ```ts
 * class TsvDecoder extends LimitedDecoder {
 *   readonly name = 'tsv';
 *   protected readonly format = 'TSV';
 *   protected readonly mimeTypes = new Set(['text/tab-separated-values']);
 *   protected async decodeWithinLimits(data: Buffer): Promise<ExtractedContent> { … }
 * }
 * ```
 */
export abstract class LimitedDecoder implements IContentDecoder {
  abstract readonly name: string;
  /** The format as error messages name it, e.g. `Word`. */
  protected abstract readonly format: string;
  /** The MIME types this decoder reads, exactly. */
  protected abstract readonly mimeTypes: ReadonlySet<string>;
  protected readonly limits: DecoderLimits;

  constructor(limits: Partial<DecoderLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  supportsMimeType(mimeType: string): boolean {
    return this.mimeTypes.has(mimeType);
  }

  /** Refuses a file over `maxFileBytes`, then decodes it. */
  async decode(data: Buffer, options: { signal?: AbortSignal; fileName?: string } = {}): Promise<ExtractedContent> {
    checkFileSize(data, this.limits, this.format);
    return this.decodeWithinLimits(data, options.signal, options.fileName);
  }

  /**
   * Decodes a file already known to be within `maxFileBytes`; `signal` stops it (time limit or
   * cancel); `fileName` is the file's name, when known.
   */
  protected abstract decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined, fileName?: string): Promise<ExtractedContent>;
}
