import { MimeTypes } from '../models/constants.js';
import { TextFormatDecoder } from './text-format-decoder.js';

/**
 * JSON: strict JSON is pretty-printed, one property per line, so chunks stay readable; anything
 * else (comments, trailing commas, as in settings files, or a truncated document) is indexed as
 * the text it is, as Kernel Memory indexes `.json` files. Only binary data fails.
 */
export class JsonDecoder extends TextFormatDecoder {
  constructor() {
    super({
      name: 'json',
      reads: (type) => type === MimeTypes.json || type.endsWith('+json'),
      gives: MimeTypes.plainText,
      convert: (text) => prettyJson(text) ?? text,
    });
  }
}

/** The text pretty-printed when it is strict JSON, else undefined. */
function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}
