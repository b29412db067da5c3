import type { TagCollection } from '../models/tag-collection.js';

/** What a fact template can show about one partition. */
export interface FactFields {
  content: string;
  /** The file name shown to the model (the page URL for a web page). */
  source: string;
  /** Relevance in [-1, 1]; shown as a percentage with one decimal. */
  relevance: number;
  memoryId: string;
  tags: TagCollection;
  payload: Record<string, unknown>;
}

const TAG = /\{\{\$tags\[(.*?)\]\}\}/g;
const META = /\{\{\$meta\[(.*?)\]\}\}/g;

/**
 * Renders one fact with a template (KM's placeholders): `{{$source}}`, `{{$relevance}}`,
 * `{{$memoryId}}`, `{{$tags[name]}}` (one value, `[a, b]` for several, `-` for none),
 * `{{$tags}}` (every non-reserved tag, `key:value;key:[a, b]`), `{{$meta[field]}}` (a payload
 * field, `-` when missing) and `{{$content}}`. The result always ends with a newline.
 */
export function renderFact(template: string, fact: FactFields): string {
  let text = template
    .replaceAll('{{$source}}', () => fact.source)
    .replaceAll('{{$relevance}}', () => `${(fact.relevance * 100).toFixed(1)}%`)
    .replaceAll('{{$memoryId}}', () => fact.memoryId)
    .replace(TAG, (_, name: string) => formatValues(fact.tags[name] ?? []))
    .replaceAll('{{$tags}}', () => formatTags(fact.tags))
    .replace(META, (_, field: string) => (Object.hasOwn(fact.payload, field) ? String(fact.payload[field]) : '-'));
  // Content last, so text inside a partition is never read as a placeholder. Replacements are
  // functions so that `$&` and the like in values stay literal.
  text = text.replaceAll('{{$content}}', () => fact.content);
  return text.endsWith('\n') ? text : `${text}\n`;
}

function formatValues(values: ReadonlyArray<string | null>): string {
  if (values.length === 0) return '-';
  if (values.length === 1) return String(values[0] ?? '');
  return `[${values.map((v) => v ?? '').join(', ')}]`;
}

function formatTags(tags: TagCollection): string {
  return Object.entries(tags)
    .filter(([key, values]) => !key.startsWith('__') && values.length > 0)
    .map(([key, values]) => `${key}:${formatValues(values)}`)
    .join(';');
}
