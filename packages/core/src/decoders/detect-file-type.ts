import { MimeTypes } from '../models/constants.js';
import { baseMimeType, mimeTypeOf } from './mime-types.js';

/** How many first bytes of a file {@link detectFileType} looks at. */
export const FILE_TYPE_HEAD_BYTES = 8192;

/** What {@link detectFileType} decides from. */
export interface FileTypeEvidence {
  /** The file's name; its extension is believed first. */
  fileName: string;
  /** The type a caller or a transport declared (multipart part, HTTP header, API argument), if any. */
  declaredType?: string | undefined;
  /** The first bytes of the file ({@link FILE_TYPE_HEAD_BYTES} are enough; fewer when the file is shorter). */
  head: Uint8Array;
  /**
   * Believe a specific declared type that agrees with the bytes before the extension. For web
   * responses, whose URL path says little (`github.com/…/blob/main/README.md` is an HTML page),
   * as Kernel Memory, which takes a download's type from its `Content-Type`. @default false
   */
  declaredFirst?: boolean;
}

const OOXML = {
  word: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xl: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
} as const;

/** Declared types that say nothing: the multipart default, the generic binary type. */
const UNSPECIFIC = new Set(['', MimeTypes.plainText, MimeTypes.octetStream, 'binary/octet-stream', 'application/unknown']);

/**
 * The MIME type of a file, decided the way Kernel Memory does, for uploads, imported streams,
 * buffers, paths and web pages alike:
 *
 * 1. the file name's extension, when it is a known one (`report.pdf` is a PDF whatever the
 *    transport said);
 * 2. else the declared type, when it is specific (not `text/plain`, `application/octet-stream`
 *    or empty) and agrees with the bytes (a declared text type whose bytes are binary, or a
 *    declared PDF without `%PDF-`, is not believed);
 * 3. else the bytes: PDF, PNG, JPEG, GIF, TIFF, Office files (a ZIP whose entries start with
 *    `word/`, `xl/`, `ppt/`), HTML, JSON; other text is `text/plain`, other bytes
 *    `application/octet-stream`.
 *
 * With `declaredFirst` (web responses), step 2 comes before step 1.
 *
 * ```ts
 * detectFileType({ fileName: 'x.html', declaredType: 'text/plain', head }); // 'text/html'
 * detectFileType({ fileName: 'README.md', declaredType: 'text/html', head, declaredFirst: true }); // 'text/html'
 * ```
 */
export function detectFileType(evidence: FileTypeEvidence): string {
  const sniffed = sniffContent(evidence.head);
  const declared = baseMimeType(evidence.declaredType ?? '');
  const believable = !UNSPECIFIC.has(declared) && agreesWithBytes(declared, sniffed);
  if (evidence.declaredFirst && believable) return declared;
  const byExtension = mimeTypeOf(evidence.fileName);
  if (byExtension !== MimeTypes.octetStream) return byExtension;
  return believable ? declared : sniffed.type;
}

/** What the first bytes of a file say. */
export interface SniffedContent {
  /** The detected type, `text/plain` for text without a known signature, `application/octet-stream` for unknown binary data. */
  type: string;
  /** True when the bytes carry a signature of a known binary format (PDF, images, ZIP). */
  signature: boolean;
  /** True when the bytes look like text (no NUL byte, no binary signature). */
  text: boolean;
}

/** The type that the first bytes of a file reveal (magic numbers, then text shapes). */
export function sniffContent(head: Uint8Array): SniffedContent {
  const bytes = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, FILE_TYPE_HEAD_BYTES));
  const binary = (type: string): SniffedContent => ({ type, signature: true, text: false });
  if (startsWith(bytes, '%PDF-')) return binary('application/pdf');
  if (bytes[0] === 0x89 && startsWith(bytes.subarray(1), 'PNG\r\n')) return binary('image/png');
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return binary('image/jpeg');
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return binary('image/gif');
  if (startsWith(bytes, 'II*\0') || startsWith(bytes, 'MM\0*')) return binary('image/tiff');
  if (startsWith(bytes, 'BM') && bytes.length >= 26 && bytes.readUInt32LE(2) > 26 && bytes[6] === 0 && bytes[7] === 0)
    return binary('image/bmp');
  if (startsWith(bytes, 'RIFF') && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return binary('image/webp');
  if (startsWith(bytes, 'PK\x03\x04')) return binary(officeTypeOf(bytes) ?? 'application/zip');
  if (bytes.includes(0)) return { type: MimeTypes.octetStream, signature: false, text: false };
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const start = text.trimStart().slice(0, 1024).toLowerCase();
  const isText = (type: string): SniffedContent => ({ type, signature: false, text: true });
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || /<(html|head|body)[\s>]/.test(start))
    return isText(MimeTypes.html);
  if ((start.startsWith('{') || start.startsWith('[')) && looksLikeJson(start)) return isText(MimeTypes.json);
  return isText(MimeTypes.plainText);
}

/** A declared type is believed when the bytes do not contradict it. */
function agreesWithBytes(declared: string, sniffed: SniffedContent): boolean {
  if (isTextType(declared)) return sniffed.text;
  // A binary type: the bytes must carry its signature when they carry one we know.
  if (sniffed.signature)
    return sniffed.type === declared || (sniffed.type === 'application/zip' && isZipBased(declared)) || sameImage(declared, sniffed.type);
  if (KNOWN_SIGNATURES.has(declared) || isZipBased(declared)) return false;
  return true;
}

const KNOWN_SIGNATURES = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/gif',
  'image/tiff',
  'image/bmp',
  'image/webp',
]);

function sameImage(declared: string, sniffed: string): boolean {
  return declared === 'image/jpg' && sniffed === 'image/jpeg';
}

function isTextType(type: string): boolean {
  return (
    type.startsWith('text/') || type === MimeTypes.json || type.endsWith('+json') || type.endsWith('+xml') || type === 'application/xml'
  );
}

function isZipBased(type: string): boolean {
  return (
    type === 'application/zip' ||
    type.startsWith('application/vnd.openxmlformats-officedocument.') ||
    type.startsWith('application/vnd.oasis.opendocument.')
  );
}

/** The Office type of a ZIP from the names of the entries visible in its first bytes. */
function officeTypeOf(bytes: Buffer): string | undefined {
  for (
    let at = bytes.indexOf('PK\x03\x04', 0, 'latin1');
    at >= 0 && at + 30 <= bytes.length;
    at = bytes.indexOf('PK\x03\x04', at + 4, 'latin1')
  ) {
    const nameLength = bytes.readUInt16LE(at + 26);
    const name = bytes.subarray(at + 30, Math.min(bytes.length, at + 30 + nameLength)).toString('latin1');
    for (const [folder, type] of Object.entries(OOXML)) if (name.startsWith(`${folder}/`)) return type;
  }
  return undefined;
}

/** JSON text starts with `{"`, `{}`, `[` followed by a value: enough to tell it from prose in brackets. */
function looksLikeJson(start: string): boolean {
  return /^(\{\s*("|\}|\/\/|\/\*)|\[\s*("|\{|\[|\]|-?\d|true|false|null))/.test(start);
}

function startsWith(bytes: Buffer, signature: string): boolean {
  return bytes.length >= signature.length && bytes.subarray(0, signature.length).toString('latin1') === signature;
}
