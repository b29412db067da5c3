import { MimeTypes } from '../models/constants.js';

const BY_EXTENSION: Record<string, string> = {
  txt: MimeTypes.plainText,
  text: MimeTypes.plainText,
  log: MimeTypes.plainText,
  csv: 'text/csv',
  md: MimeTypes.markdown,
  markdown: MimeTypes.markdown,
  htm: MimeTypes.html,
  html: MimeTypes.html,
  json: MimeTypes.json,
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  gif: 'image/gif',
  bmp: 'image/bmp',
  webp: 'image/webp',
};

/**
 * MIME type of a file from its extension, `application/octet-stream` when unknown.
 * Extra mappings can be registered with {@link registerMimeType}.
 */
export function mimeTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return MimeTypes.octetStream;
  return BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] ?? MimeTypes.octetStream;
}

/** Maps a file extension (without dot) to a MIME type. */
export function registerMimeType(extension: string, mimeType: string): void {
  BY_EXTENSION[extension.toLowerCase()] = mimeType;
}

/** The MIME type without parameters, lower-case: `text/html; charset=utf-8` → `text/html`. */
export function baseMimeType(mimeType: string): string {
  return (mimeType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The usual extension (with the dot) of a MIME type, `.bin` when unknown: `application/pdf` → `.pdf`. */
export function extensionOfMimeType(mimeType: string): string {
  const base = baseMimeType(mimeType);
  const found = Object.entries(BY_EXTENSION).find(([, type]) => type === base);
  return found ? `.${found[0]}` : '.bin';
}
