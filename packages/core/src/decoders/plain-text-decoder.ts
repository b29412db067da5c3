import { MimeTypes } from '../models/constants.js';
import { TextFormatDecoder } from './text-format-decoder.js';

/** Plain text (and CSV, logs): one section, as is. */
export class PlainTextDecoder extends TextFormatDecoder {
  constructor() {
    super({ name: 'text', reads: (type) => type === MimeTypes.plainText || type === 'text/csv', gives: MimeTypes.plainText });
  }
}
