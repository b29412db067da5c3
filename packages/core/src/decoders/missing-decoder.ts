import { baseMimeType } from './mime-types.js';

/**
 * The exact types the decoders of `@km/decoders` read (its `createDecoders()`): PDF, Word,
 * Excel, PowerPoint, CSV/TSV and the images its OCR reads. GIF, SVG, legacy Office formats and
 * other images are not among them.
 */
const DECODERS_PACKAGE_TYPES = new Set([
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'text/csv',
  'text/tab-separated-values',
  'application/csv',
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/tiff',
  'image/bmp',
  'image/webp',
]);

/**
 * Why a file of this type cannot be read, naming what to install: `@km/decoders` for the
 * types it reads (PDF, Word, Excel, PowerPoint, CSV, PNG, JPEG, TIFF, BMP, WebP), else that no
 * decoder is registered for the type and a custom `IContentDecoder` is needed.
 */
export function missingDecoderReason(mimeType: string): string {
  const base = baseMimeType(mimeType);
  if (DECODERS_PACKAGE_TYPES.has(base)) {
    return `no decoder for ${base}: install @km/decoders and register its decoders (createDecoders() with KernelMemoryBuilder.withDecoder)`;
  }
  // "no decoder for <type>" starts every reason: clients and tests match it.
  return `no decoder for ${base || 'this file type'}: none is registered for this type; register an IContentDecoder for it with KernelMemoryBuilder.withDecoder`;
}
