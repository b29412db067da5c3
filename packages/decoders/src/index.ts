import type { IContentDecoder } from '@km/core';
import { CsvDecoder } from './csv-decoder.js';
import { DocxDecoder } from './docx-decoder.js';
import { ImageOcrDecoder, type ImageOcrOptions } from './image-ocr-decoder.js';
import type { DecoderLimits } from './limits.js';
import { PdfDecoder } from './pdf-decoder.js';
import { PptxDecoder } from './pptx-decoder.js';
import { XlsxDecoder } from './xlsx-decoder.js';

export { PdfDecoder } from './pdf-decoder.js';
export { DocxDecoder, DOCX_MIME_TYPE, docxSections } from './docx-decoder.js';
export { PptxDecoder, PPTX_MIME_TYPE } from './pptx-decoder.js';
export { XlsxDecoder, XLSX_MIME_TYPE } from './xlsx-decoder.js';
export { CsvDecoder, parseCsv } from './csv-decoder.js';
export { ImageOcrDecoder, type ImageOcrOptions } from './image-ocr-decoder.js';
export { DEFAULT_LIMITS, type DecoderLimits } from './limits.js';
export { readZipEntries } from './zip/safe-unzip.js';
export { rowsAsText } from './rows-as-text.js';

/** Options of {@link createDecoders}. */
export interface DecodersOptions {
  limits?: Partial<DecoderLimits>;
  /** OCR settings; `false` leaves images out. */
  ocr?: ImageOcrOptions | false;
}

/**
 * Every decoder of this package, sharing one set of limits: PDF, Word, PowerPoint, Excel, CSV
 * and images (OCR). Register them on a builder:
 *
 * ```ts
 * const builder = new KernelMemoryBuilder();
 * for (const decoder of createDecoders()) builder.withDecoder(decoder);
 * ```
 */
export function createDecoders(options: DecodersOptions = {}): IContentDecoder[] {
  const limits = options.limits ?? {};
  const decoders: IContentDecoder[] = [
    new PdfDecoder(limits),
    new DocxDecoder(limits),
    new PptxDecoder(limits),
    new XlsxDecoder(limits),
    new CsvDecoder(limits),
  ];
  if (options.ocr !== false) decoders.push(new ImageOcrDecoder({ ...options.ocr, limits: { ...limits, ...options.ocr?.limits } }));
  return decoders;
}
