import { PayloadFields } from '../models/memory-record.js';

/** The partition text of a stored payload (`payload.text`), or '' when it has none; what lexical search reads. */
export function partitionText(payloadJson: string): string {
  const text = (JSON.parse(payloadJson) as Record<string, unknown>)[PayloadFields.text];
  return typeof text === 'string' ? text : '';
}
