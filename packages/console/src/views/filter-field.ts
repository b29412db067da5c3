import { field, h } from '../dom.js';
import type { MemoryFilterJson } from '@km/wire';
import { parseFilters } from '../filters.js';

/** The tag-filter text area shared by search and ask, with its rules as a hint. */
export function filterField(name: string): { element: HTMLElement; read(): MemoryFilterJson[] } {
  const input = h('textarea', { name, rows: 2, spellcheck: 'false', placeholder: 'topic:space, !draft' });
  return {
    element: field(
      'Tag filters',
      input,
      'One filter per line; a result matches any line (OR). Within a line, tags separated by commas must all match (AND); !key:value excludes (NOT).',
    ),
    read: () => parseFilters(input.value),
  };
}
