import { detectFileType } from '../decoders/detect-file-type.js';

/**
 * The MIME type of a body sent without a useful content type, from the URL path's extension,
 * else its first bytes.
 * @deprecated Use {@link detectFileType}, which also weighs a declared type.
 */
export function sniffMimeType(data: Buffer, path: string): string {
  return detectFileType({ fileName: path, head: data });
}
