import { MAX_FILE_NAME_BYTES, utf8Length } from '@km/core/connector';

// What km refuses in a file name (control characters, the characters Windows and POSIX reserve).
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"/\\|?*]/g;
/** Longest extension kept whole when a name is shortened. */
const MAX_EXTENSION_CHARS = 16;

/**
 * The file name of a synced object or blob: the last segment of its key (name), made a name km accepts, so an
 * object whose key the store allows but km's file names do not (`a:b.md`, `v1..2.txt`, a 300-byte
 * name) is still synced: reserved characters become `_`, runs of dots one dot, and a name over
 * {@link MAX_FILE_NAME_BYTES} bytes is shortened before its extension (the pipeline detects the
 * type from it). The item id keeps the key as it is.
 */
export function syncFileName(key: string): string {
  let name = key
    .slice(key.lastIndexOf('/') + 1)
    .replace(FORBIDDEN, '_')
    .replace(/\.{2,}/g, '.');
  if (name.trim() === '' || name === '.') name = `_${name}`;
  if (utf8Length(name) <= MAX_FILE_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= MAX_EXTENSION_CHARS ? name.slice(dot) : '';
  const budget = MAX_FILE_NAME_BYTES - utf8Length(extension);
  let stem = '';
  for (const char of name.slice(0, name.length - extension.length)) {
    if (utf8Length(stem + char) > budget) break;
    stem += char;
  }
  return stem + extension;
}
