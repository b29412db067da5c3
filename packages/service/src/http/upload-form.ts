import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { KmError, RESERVED_TAG_PREFIX, validateFileName, type TagCollection } from '@km/core';
import { HttpProblem } from './problem-details.js';
import { newSpoolFolderName } from './upload-spool.js';

/** A file of an upload, spooled to disk until the document is stored. */
export interface SpooledFile {
  name: string;
  path: string;
  /** The part's content type, unless it was the generic `application/octet-stream`. */
  mimeType: string | undefined;
  size: number;
}

/** The fields and files of `POST /upload`, as Kernel Memory's clients send them. */
export interface UploadForm {
  index: string | undefined;
  documentId: string | undefined;
  tags: TagCollection;
  steps: string[];
  args: Record<string, unknown>;
  files: SpooledFile[];
  /** Removes the spooled files. */
  cleanup(): Promise<void>;
}

const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_PARTS = 1000;

/** Limits of {@link readUploadForm}. */
export interface UploadFormOptions {
  maxBytes: number;
  spoolDirectory: string;
  /** The slowest body accepted, in bytes per second over each `minRateGraceMs` window; 0 = any. */
  minBytesPerSecond?: number;
  /** @default 5000 */
  minRateGraceMs?: number;
}

/**
 * Reads a multipart upload: `index`, `documentId` (once each), repeated `tags` (`key:value`),
 * repeated `steps` (also separated by spaces, commas or semicolons, as KM allows), `args` (a
 * JSON object) and any number of files under any field name. Files are spooled to
 * `spoolDirectory` so that fields may come after them; all of it is removed on any error.
 */
export async function readUploadForm(request: FastifyRequest, options: UploadFormOptions): Promise<UploadForm> {
  if (!request.isMultipart()) throw new HttpProblem(400, 'Invalid content, multipart form data not found', 'invalid_argument');
  if (!boundaryOf(request.headers['content-type'])) {
    throw new HttpProblem(400, 'the Content-Type multipart/form-data has no boundary parameter', 'invalid_multipart');
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    throw new HttpProblem(413, `the upload is ${declared} bytes, over the limit of ${options.maxBytes}`, 'content_too_large');
  }
  const folder = join(options.spoolDirectory, newSpoolFolderName());
  const cleanup = () => rm(folder, { recursive: true, force: true });
  const fields = new Map<string, string[]>();
  const files: SpooledFile[] = [];
  let total = 0;
  const rate = watchBodyRate(request, options.minBytesPerSecond ?? 0, options.minRateGraceMs ?? 5000);
  const { signal } = rate;
  try {
    await mkdir(folder, { recursive: true });
    const parts = parserErrors(request.parts({ limits: { fileSize: options.maxBytes, fieldSize: MAX_FIELD_BYTES, parts: MAX_PARTS } }))[
      Symbol.asyncIterator
    ]();
    for (;;) {
      const next = await untilAborted(parts.next(), signal);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'field') {
        if (part.valueTruncated)
          throw new HttpProblem(413, `field "${part.fieldname}" is over ${MAX_FIELD_BYTES} bytes`, 'content_too_large');
        const list = fields.get(part.fieldname) ?? [];
        // A part sent as application/json arrives parsed: keep its JSON text, not "[object Object]".
        list.push(typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
        fields.set(part.fieldname, list);
        continue;
      }
      const name = part.filename;
      if (!name) {
        part.file.resume();
        throw new HttpProblem(400, `the file in field "${part.fieldname}" has no file name`, 'invalid_file_name');
      }
      validateFileName(name, { uploaded: true });
      if (files.some((f) => f.name === name)) {
        part.file.resume();
        throw new HttpProblem(400, `file name "${name}" appears twice in one upload`, 'invalid_file_name');
      }
      const path = join(folder, String(files.length));
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          total += chunk.length;
          if (total > options.maxBytes) {
            done(new HttpProblem(413, `the upload is over the limit of ${options.maxBytes} bytes`, 'content_too_large'));
            return;
          }
          done(null, chunk);
        },
      });
      const out = createWriteStream(path);
      try {
        await pipeline(part.file, counter, out, { signal });
      } catch (error) {
        if (signal.aborted) part.file.destroy();
        // The spool file must be closed before the folder is removed, or it would outlive it.
        if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
        // Disk errors stay 500s; the rest comes from the body (the parser, a client gone).
        if (signal.aborted) throw signal.reason;
        throw (error as { syscall?: unknown }).syscall ? error : malformed(error);
      }
      if (part.file.truncated)
        throw new HttpProblem(413, `file "${name}" is over the limit of ${options.maxBytes} bytes`, 'content_too_large');
      const mimeType = part.mimetype && part.mimetype !== 'application/octet-stream' ? part.mimetype.split(';')[0]!.trim() : undefined;
      files.push({ name, path, mimeType, size });
    }
    return {
      index: single(fields, 'index', "Invalid index name, 'index', multiple values provided"),
      documentId: single(fields, 'documentId', "Invalid document ID, 'documentId' must be a single value, not a list"),
      tags: parseTags(fields.get('tags') ?? []),
      steps: parseSteps(fields.get('steps') ?? []),
      args: parseArgs(fields.get('args')),
      files,
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  } finally {
    rate.stop();
  }
}

/**
 * Aborts (with a 408 problem) when the request body arrives slower than `minBytesPerSecond`
 * over a window of `windowMs`, checked from `windowMs` after the start until the body is
 * complete; bytes are counted on the socket, so every part counts. Aborts too when the client
 * closes the connection before the body is complete.
 */
function watchBodyRate(request: FastifyRequest, minBytesPerSecond: number, windowMs: number): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const socket = request.raw.socket;
  // A client gone before the end of its body: the parser would wait for the rest forever.
  const onClose = () => {
    if (!request.raw.complete)
      controller.abort(new HttpProblem(499, 'the client closed the connection before the end of the upload', 'client_closed'));
  };
  socket?.once('close', onClose);
  if (minBytesPerSecond <= 0 || !socket) return { signal: controller.signal, stop: () => socket?.off('close', onClose) };
  const needed = (minBytesPerSecond * windowMs) / 1000;
  const tick = Math.min(1000, Math.max(20, Math.floor(windowMs / 5)));
  const start = Date.now();
  // (time, bytes read) samples of the last window, oldest first
  const samples: Array<[number, number]> = [[start, socket.bytesRead]];
  const timer = setInterval(() => {
    if (request.raw.complete || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    const now = Date.now();
    const bytes = socket.bytesRead;
    samples.push([now, bytes]);
    while (samples.length > 1 && samples[1]![0] <= now - windowMs) samples.shift();
    if (now - start < windowMs) return;
    if (bytes - samples[0]![1] < needed) {
      clearInterval(timer);
      controller.abort(
        new HttpProblem(
          408,
          `the upload arrived slower than ${minBytesPerSecond} bytes per second over ${windowMs} ms (http.minUploadBytesPerSecond)`,
          'request_timeout',
        ),
      );
    }
  }, tick);
  timer.unref();
  return {
    signal: controller.signal,
    stop: () => {
      clearInterval(timer);
      socket.off('close', onClose);
    },
  };
}

/** `promise`, or the signal's reason once it is aborted (the promise's own outcome is then ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** The `boundary` parameter of a multipart Content-Type, or undefined when absent or empty. */
function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  return boundary ? boundary : undefined;
}

/** The parts of a multipart body, with the parser's own errors (malformed or truncated body) turned into 400s. */
async function* parserErrors<T>(parts: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* parts;
  } catch (error) {
    throw malformed(error);
  }
}

/**
 * A 400 naming what the multipart parser found wrong. Errors that already carry a status
 * (ours, km's, @fastify/multipart's limits) keep it.
 */
function malformed(error: unknown): unknown {
  if (error instanceof HttpProblem || error instanceof KmError) return error;
  const { statusCode, message, code } = error as { statusCode?: unknown; message?: unknown; code?: unknown };
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new HttpProblem(
      400,
      `a multipart field sent as application/json does not hold valid JSON (${String(message)})`,
      'invalid_multipart',
    );
  }
  if (typeof statusCode === 'number') return error;
  const reason = typeof message === 'string' && message ? message : String(error);
  return new HttpProblem(
    400,
    `the multipart body is malformed or truncated (${reason}): it must use the boundary of the Content-Type header and end with the closing boundary`,
    'invalid_multipart',
  );
}

function single(fields: Map<string, string[]>, name: string, message: string): string | undefined {
  const values = fields.get(name) ?? [];
  if (values.length > 1) throw new HttpProblem(400, message, 'invalid_argument');
  const value = values[0]?.trim();
  return value ? value : undefined;
}

/**
 * `key:value` pairs, split at the first colon as KM does; `key:` and `key` (no colon) are a
 * key without value. An empty key or a reserved (`__`) key is refused.
 */
export function parseTags(values: readonly string[]): TagCollection {
  const tags: TagCollection = {};
  for (const raw of values) {
    const tag = raw.trim();
    if (tag === '') continue;
    const colon = tag.indexOf(':');
    const key = (colon < 0 ? tag : tag.slice(0, colon)).trim();
    const value = colon < 0 ? '' : tag.slice(colon + 1).trim();
    if (key === '') throw new HttpProblem(400, `tag ${JSON.stringify(tag)} has no key`, 'invalid_tag');
    if (key.startsWith(RESERVED_TAG_PREFIX)) {
      throw new HttpProblem(
        400,
        `the tag name prefix '${RESERVED_TAG_PREFIX}' is reserved for internal use: ${JSON.stringify(key)}`,
        'invalid_tag',
      );
    }
    (tags[key] ??= []).push(value === '' ? null : value);
  }
  return tags;
}

function parseSteps(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(/[\s,;]+/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function parseArgs(values: readonly string[] | undefined): Record<string, unknown> {
  if (!values || values.length === 0) return {};
  if (values.length > 1) throw new HttpProblem(400, "'args' must be a single JSON object", 'invalid_argument');
  // As KM: an empty, blank or `null` args field means no arguments.
  const text = values[0]!.trim();
  if (text === '' || text === 'null') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpProblem(400, "'args' must be a JSON object", 'invalid_argument');
}
