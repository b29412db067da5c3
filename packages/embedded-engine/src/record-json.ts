/** The parts of a log entry's JSON text `{"id":…,"tags":…,"payload":…}`. */
export interface RecordJson {
  id: string;
  tags: Record<string, Array<string | null>>;
  /** The payload's JSON text, as written. */
  payloadJson: string;
}

const QUOTE = 34;
const COMMA = 44;
const OPEN_ARRAY = 91;
const BACKSLASH = 92;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

/**
 * Reads the JSON text of a record log entry without `JSON.parse` when it has the exact shape
 * `JSON.stringify` gives it (no whitespace, no escapes in the id or tags, a payload that is
 * `null` or one object closed right before the entry's closing brace): the id and tags are
 * sliced out and the payload is kept as text (not parsed, not serialised again). Returns
 * undefined for anything else, which the caller then parses in full: it never guesses. The
 * payload object is checked for balanced brackets and strings only, not parsed.
 */
export function readRecordJson(text: string): RecordJson | undefined {
  if (!text.startsWith('{"id":"')) return undefined;
  const idEnd = text.indexOf('"', 7);
  if (idEnd < 0) return undefined;
  const id = text.slice(7, idEnd);
  if (id.includes('\\') || !text.startsWith(',"tags":{', idEnd + 1)) return undefined;
  let at = idEnd + 10;
  const tags: Record<string, Array<string | null>> = {};
  if (text.charCodeAt(at) === CLOSE_OBJECT) at++;
  else {
    for (;;) {
      const key = stringAt(text, at);
      if (key === undefined || key === '__proto__' || !text.startsWith(':[', at + key.length + 2)) return undefined;
      at += key.length + 4;
      const values: Array<string | null> = [];
      if (text.charCodeAt(at) === CLOSE_ARRAY) at++;
      else {
        for (;;) {
          if (text.startsWith('null', at)) {
            values.push(null);
            at += 4;
          } else {
            const value = stringAt(text, at);
            if (value === undefined) return undefined;
            values.push(value);
            at += value.length + 2;
          }
          const next = text.charCodeAt(at++);
          if (next === CLOSE_ARRAY) break;
          if (next !== COMMA) return undefined;
        }
      }
      tags[key] = values;
      const next = text.charCodeAt(at++);
      if (next === CLOSE_OBJECT) break;
      if (next !== COMMA) return undefined;
    }
  }
  const last = text.length - 1;
  if (!text.startsWith(',"payload":', at) || text.charCodeAt(last) !== CLOSE_OBJECT) return undefined;
  const start = at + 11;
  if (last - start === 4 && text.startsWith('null', start)) return { id, tags, payloadJson: '{}' };
  return isOneObject(text, start, last) ? { id, tags, payloadJson: text.slice(start, last) } : undefined;
}

/**
 * Whether `text` from `from` to `to` (exclusive) is one `{…}`: its brackets balance and pair up
 * outside strings, and the brace that closes the first one is the last character.
 */
function isOneObject(text: string, from: number, to: number): boolean {
  if (text.charCodeAt(from) !== OPEN_OBJECT) return false;
  const closers: number[] = [];
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0 || at >= to) return false;
    } else if (code === OPEN_OBJECT) closers.push(CLOSE_OBJECT);
    else if (code === OPEN_ARRAY) closers.push(CLOSE_ARRAY);
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (closers.pop() !== code) return false;
      if (closers.length === 0) return at === to - 1;
    }
  }
  return false;
}

/** Where the JSON string opened at `open` is closed (its quote), skipping escaped quotes; -1 if never. */
function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** The id of a delete entry's JSON text `{"id":"…"}` without escapes; undefined for anything else. */
export function readDeleteJson(text: string): string | undefined {
  if (!text.startsWith('{"id":"') || !text.endsWith('"}')) return undefined;
  const id = text.slice(7, -2);
  return id.includes('"') || id.includes('\\') ? undefined : id;
}

/** The JSON string starting at `at` when it has no escapes (its text; the literal is 2 longer); else undefined. */
function stringAt(text: string, at: number): string | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  const end = text.indexOf('"', at + 1);
  if (end < 0) return undefined;
  const value = text.slice(at + 1, end);
  return value.includes('\\') ? undefined : value;
}
