import type { Attributes } from '@opentelemetry/api';
import { KmAttributes } from './span-attributes.js';

/** Attributes of a `km.memory_db.<operation>` span: the memory DB's name, the index as given, and `extra`. */
export function memoryDbAttributes(memoryDb: string, index: string | undefined, extra?: Attributes): Attributes {
  return {
    [KmAttributes.memoryDb]: memoryDb,
    ...(typeof index === 'string' ? { [KmAttributes.index]: index } : {}),
    ...extra,
  };
}
