/** Azure AI Search's longest document key, in characters. */
export const MAX_DOCUMENT_KEY_LENGTH = 1024;

/** The longest km record id that fits a key: 320 UTF-16 code units (16 bits each, 5 bits per key character). */
export const MAX_RECORD_ID_UNITS = Math.floor((MAX_DOCUMENT_KEY_LENGTH * 5) / 16);

/** base32hex, lower case: its characters sort in the same order as the values they stand for. */
const ALPHABET = '0123456789abcdefghijklmnopqrstuv';
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));

/**
 * The document key of a km record id: the id's UTF-16 code units, 16 bits each, big-endian,
 * written 5 bits per character in base32hex (`0-9a-v`, the last character padded with zero
 * bits). Keys hold only letters and digits (never a leading `_`, never a quote) and sort, as
 * ASCII strings, exactly as the ids do under `compareRecordIds` (UTF-16 code unit order), so the
 * service can list records in km's id order. Undefined when the id is longer than
 * {@link MAX_RECORD_ID_UNITS} code units.
 *
 * ```ts
 * documentKeyOf('a'); // '01gg' (0x0061 as 00000 00001 10000 1+0000)
 * recordIdOfKey(documentKeyOf('d=doc//p=1')!); // 'd=doc//p=1'
 * ```
 */
export function documentKeyOf(recordId: string): string | undefined {
  if (recordId.length === 0 || recordId.length > MAX_RECORD_ID_UNITS) return undefined;
  let key = '';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < recordId.length; i++) {
    buffer = (buffer << 16) | recordId.charCodeAt(i);
    bits += 16;
    while (bits >= 5) {
      bits -= 5;
      key += ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) key += ALPHABET[(buffer << (5 - bits)) & 31];
  return key;
}

/** The km record id of a key made by {@link documentKeyOf}; undefined when it is not one. */
export function recordIdOfKey(key: string): string | undefined {
  if (key.length === 0 || key.length > MAX_DOCUMENT_KEY_LENGTH) return undefined;
  let id = '';
  let buffer = 0;
  let bits = 0;
  for (const char of key) {
    const value = VALUES.get(char);
    if (value === undefined) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 16) {
      bits -= 16;
      id += String.fromCharCode((buffer >>> bits) & 0xffff);
      buffer &= (1 << bits) - 1;
    }
  }
  // What is left is padding: fewer than 5 bits, all zero (so that every id has one key).
  return bits < 5 && buffer === 0 && id.length > 0 ? id : undefined;
}
