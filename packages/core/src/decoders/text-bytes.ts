import { KmError } from '../errors/km-error.js';

const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * Decodes UTF-8 text (a BOM is dropped). Refuses data that looks binary (NUL bytes in the
 * first 8 KiB), so a mislabelled file fails with a reason instead of filling memory with noise.
 */
export function decodeUtf8Text(data: Uint8Array, what = 'file'): string {
  const head = data.subarray(0, 8192);
  if (head.includes(0)) {
    throw new KmError('unsupported_content', `${what} looks binary (NUL bytes), not text`);
  }
  let text = decoder.decode(data);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}
