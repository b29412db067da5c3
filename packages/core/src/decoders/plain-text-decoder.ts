import { MimeTypes } from '../models/constants.js';
import { plainTextTitle } from './document-title.js';
import { TextFormatDecoder } from './text-format-decoder.js';

/**
 * Plain text (and CSV, logs): one section, as is. The title is a first line that looks like one
 * (see `plainTextTitle`).
 */
export class PlainTextDecoder extends TextFormatDecoder {
  constructor() {
    super({
      name: 'text',
      reads: (type) => type === MimeTypes.plainText || type === 'text/csv',
      gives: MimeTypes.plainText,
      title: plainTextTitle,
    });
  }
}
