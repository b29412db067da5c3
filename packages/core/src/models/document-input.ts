import type { ImportInput, ImportOptions } from '../contracts/kernel-memory.js';
import { InvalidInputError } from '../errors/km-error.js';
import { Document } from './document.js';
import { validateTags } from './tag-collection.js';

/**
 * The Document an import call describes: a Document as given (plus the options' tags), or a
 * new one (id from the options) holding a path, several paths, or one file source.
 */
export function documentFromInput(input: ImportInput, options: ImportOptions = {}): Document {
  const tags = validateTags(options.tags);
  if (input instanceof Document) {
    for (const [key, values] of Object.entries(tags)) for (const v of values) input.addTag(key, v);
    return input;
  }
  const document = new Document(options.documentId, tags);
  if (typeof input === 'string') return document.addFile(input);
  if (Array.isArray(input)) {
    for (const path of input) document.addFile(path);
    return document;
  }
  if (input && typeof input === 'object' && typeof input.name === 'string') {
    if ('path' in input) return document.addFile(input.path, input.name, input.mimeType);
    if ('data' in input) return document.addBuffer(input.name, input.data, input.mimeType);
    if ('stream' in input) return document.addStream(input.name, input.stream, input.mimeType);
  }
  throw new InvalidInputError('invalid_argument', 'import input must be a Document, a path, a list of paths or a file source');
}
