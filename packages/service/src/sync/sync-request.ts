import { validateTags } from '@km/core/connector';
import type { SyncRequest, SyncSourceRequest } from '@km/wire';
import { HttpProblem } from '../http/problem-details.js';

/** Most pages a web sync may list. */
export const MAX_SYNC_PAGES = 10_000;
/** Most items a sync ingests at once. */
export const MAX_SYNC_CONCURRENCY = 32;

/** The source types a request may name, those the service can sync. */
export type SyncSourceType = SyncSourceRequest['type'];

const bad = (message: string): never => {
  throw new HttpProblem(400, message, 'invalid_argument');
};

/**
 * Checks the body of `POST /sync` and returns a clean copy: 400 ProblemDetails naming the field
 * at fault, and `unsupported_source` for a source type this service does not sync.
 */
export function parseSyncRequest(body: unknown, supported: readonly SyncSourceType[]): SyncRequest {
  if (!isObject(body)) bad('the body must be a JSON object {"source": {"type": "folder", "path": "…"}, "index": "…"}');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!['index', 'tags', 'deleteMissing', 'concurrency', 'source'].includes(key)) bad(`unknown field ${JSON.stringify(key)}`);
  }
  const request: SyncRequest = { source: parseSource(input.source, supported) };
  if (input.index !== undefined && input.index !== null) {
    if (typeof input.index !== 'string') bad("'index' must be a string");
    request.index = input.index as string;
  }
  if (input.tags !== undefined && input.tags !== null) {
    try {
      request.tags = validateTags(input.tags);
    } catch (error) {
      throw new HttpProblem(400, `'tags': ${(error as Error).message.replace(/^\[km\]\s*/, '')}`, 'invalid_tag');
    }
  }
  if (input.deleteMissing !== undefined) {
    if (typeof input.deleteMissing !== 'boolean') bad("'deleteMissing' must be true or false");
    request.deleteMissing = input.deleteMissing as boolean;
  }
  if (input.concurrency !== undefined) request.concurrency = wholeNumber(input.concurrency, 'concurrency', MAX_SYNC_CONCURRENCY);
  return request;
}

function parseSource(value: unknown, supported: readonly SyncSourceType[]): SyncSourceRequest {
  if (!isObject(value)) bad(`'source' must be an object with a 'type' (${supported.join(', ')})`);
  const source = value as Record<string, unknown>;
  const type = source.type;
  if (typeof type !== 'string') bad(`'source.type' must be one of ${supported.join(', ')}`);
  if (!(supported as readonly string[]).includes(type as string)) {
    throw new HttpProblem(
      400,
      `this service does not sync sources of type ${JSON.stringify(type)}; it syncs ${supported.join(', ')}`,
      'unsupported_source',
    );
  }
  switch (type as SyncSourceType) {
    case 'folder': {
      only(source, ['type', 'path', 'include', 'exclude']);
      if (typeof source.path !== 'string' || source.path.trim() === '') bad("'source.path' must be the path of a folder");
      return {
        type: 'folder',
        path: source.path as string,
        ...(source.include !== undefined ? { include: globs(source.include, 'include') } : {}),
        ...(source.exclude !== undefined ? { exclude: globs(source.exclude, 'exclude') } : {}),
      };
    }
    case 'web': {
      only(source, ['type', 'url', 'sitemap', 'maxPages']);
      const url = httpUrl(source.url, 'source.url');
      const sitemap = source.sitemap;
      if (sitemap !== undefined && typeof sitemap !== 'boolean') httpUrl(sitemap, 'source.sitemap');
      return {
        type: 'web',
        url,
        ...(sitemap !== undefined ? { sitemap: typeof sitemap === 'boolean' ? sitemap : httpUrl(sitemap, 'source.sitemap') } : {}),
        ...(source.maxPages !== undefined ? { maxPages: wholeNumber(source.maxPages, 'source.maxPages', MAX_SYNC_PAGES) } : {}),
      };
    }
    case 's3': {
      only(source, ['type', 'bucket', 'prefix']);
      if (typeof source.bucket !== 'string' || source.bucket === '') bad("'source.bucket' must name a bucket");
      return { type: 's3', bucket: source.bucket as string, ...optionalPrefix(source.prefix) };
    }
    case 'azure-blob': {
      only(source, ['type', 'container', 'prefix']);
      if (typeof source.container !== 'string' || source.container === '') bad("'source.container' must name a container");
      return { type: 'azure-blob', container: source.container as string, ...optionalPrefix(source.prefix) };
    }
  }
  return bad(`'source.type' ${JSON.stringify(type)} is unknown`);
}

function only(source: Record<string, unknown>, keys: string[]): void {
  for (const key of Object.keys(source)) if (!keys.includes(key)) bad(`unknown field "source.${key}" for a ${source.type} source`);
}

function optionalPrefix(prefix: unknown): { prefix?: string } {
  if (prefix === undefined) return {};
  if (typeof prefix !== 'string') bad("'source.prefix' must be a string");
  return { prefix: prefix as string };
}

function globs(value: unknown, name: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((g) => typeof g === 'string' && g.trim() !== '')) {
    bad(`'source.${name}' must be a list of glob patterns such as "**/*.md"`);
  }
  return list as string[];
}

function httpUrl(value: unknown, name: string): string {
  if (typeof value !== 'string') return bad(`'${name}' must be an http(s) URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad(`'${name}' ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`'${name}' must be an http or https URL, got ${url.protocol}`);
  return url.href;
}

function wholeNumber(value: unknown, name: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    bad(`'${name}' must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}`);
  }
  return value as number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
