import { mimeTypeOf } from '../decoders/mime-types.js';
import { MimeTypes } from '../models/constants.js';

/** The MIME type of a body sent without a useful content type: from its first bytes, else the URL path. */
export function sniffMimeType(data: Buffer, path: string): string {
  const head = data.subarray(0, 512);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (head[0] === 0x89 && head.subarray(1, 4).toString('latin1') === 'PNG') return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  const text = head.toString('utf8').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html') || /<(head|body|title)[\s>]/.test(text)) return MimeTypes.html;
  if (text.startsWith('{') || text.startsWith('[')) return MimeTypes.json;
  const byPath = mimeTypeOf(path);
  if (byPath !== MimeTypes.octetStream) return byPath;
  return head.includes(0) ? MimeTypes.octetStream : MimeTypes.plainText;
}
