import { KmError } from '@km/core';

/** Limits every decoder of this package enforces. A file over one fails with the limit's name. */
export interface DecoderLimits {
  /** Largest input file, in bytes. @default 100 MiB */
  maxFileBytes: number;
  /**
   * Office files (zip): most bytes inflated from the parts read, in all; the parts read are held
   * (as inflated) while the file decodes, so this is the ceiling of a file under the ratio limit.
   * @default 64 MiB
   */
  maxUncompressedBytes: number;
  /** Office files (zip): most entries in the archive. @default 10000 */
  maxZipEntries: number;
  /**
   * Office files (zip): most inflated bytes per compressed byte, of one entry and of all the
   * entries read so far, checked as they inflate once past 1 MiB (Apache POI's default; real
   * Office parts stay well under it, zip bombs run near deflate's 1032:1). @default 100
   */
  maxCompressionRatio: number;
  /** Most PDF pages or presentation slides. @default 2000 */
  maxPages: number;
  /** Most spreadsheet sheets. @default 200 */
  maxSheets: number;
  /** Most rows read per sheet or CSV file. @default 1000000 */
  maxRows: number;
  /**
   * Most cells read from a workbook (every `<c>` element of every sheet) or CSV file (every
   * field). Empty cells a row skips are never stored nor counted. @default 10000000
   */
  maxCells: number;
  /**
   * Most characters of text one Word, PowerPoint, Excel or CSV file may give, all its sections
   * together: text can outgrow the file (a table row padded to the widest row, a sheet or slide
   * listed many times, one long shared string used in many cells). @default 32000000
   */
  maxTextChars: number;
  /** Images: most pixels (width × height) sent to OCR. @default 50000000 */
  maxImagePixels: number;
}

export const DEFAULT_LIMITS: DecoderLimits = {
  maxFileBytes: 100 * 1024 * 1024,
  maxUncompressedBytes: 64 * 1024 * 1024,
  maxZipEntries: 10_000,
  maxCompressionRatio: 100,
  maxPages: 2_000,
  maxSheets: 200,
  maxRows: 1_000_000,
  maxCells: 10_000_000,
  maxTextChars: 32_000_000,
  maxImagePixels: 50_000_000,
};

/** The error of a file over a limit: `content_too_large`, naming the limit and its value. */
export function overLimit(what: string, limit: keyof DecoderLimits, value: number): KmError {
  return new KmError('content_too_large', `${what} is over the ${limit} limit (${value})`);
}

/** Throws when the file is larger than `maxFileBytes`. */
export function checkFileSize(data: Uint8Array, limits: DecoderLimits, format: string): void {
  if (data.length > limits.maxFileBytes) throw overLimit(`the ${format} file (${data.length} bytes)`, 'maxFileBytes', limits.maxFileBytes);
}

/** Throws KmError `aborted` when the signal fired (a decoder's time limit, or a cancel). */
export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KmError('aborted', 'decoding stopped (time limit or cancel)', { cause: signal.reason });
}

/** A corrupt or unreadable file. */
export function unreadable(format: string, reason: string, cause?: unknown): KmError {
  return new KmError('unsupported_content', `the ${format} file cannot be read: ${reason}`, { cause });
}

/**
 * Counts the characters of text a decoder builds for one file, before it builds them, and
 * throws `content_too_large` (the `maxTextChars` limit) once they pass the limit.
 */
export class TextBudget {
  private used = 0;

  constructor(
    private readonly max: number,
    private readonly format: string,
  ) {}

  /** Counts `chars` more characters; throws when the total passes the limit. */
  take(chars: number): void {
    this.used += chars;
    if (this.used > this.max)
      throw overLimit(`the text of the ${this.format} file (over ${this.used} characters)`, 'maxTextChars', this.max);
  }
}
