import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { normalizeIndexNameLogged, validateDocumentId, validateFileName, type MemoryService, type StreamableFileContent } from '@km/core';
import { parseRange, sliceStream } from '../http/byte-range.js';
import { HttpProblem } from '../http/problem-details.js';
import { uploadStatusLocation } from './locations.js';

interface DocumentQuery {
  index?: string;
  documentId?: string;
  filename?: string;
  /** `true`: internal files of the document (pipeline state, extracted text, partitions, embeddings) may be downloaded too. */
  artifacts?: string;
}

/** `GET /upload-status`, `DELETE /documents` and `GET /download`. */
export function registerDocumentRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get<{ Querystring: DocumentQuery }>('/upload-status', async (request) => {
    const { index, documentId } = documentParams(request.query, memory);
    const status = await memory.getDocumentStatus(documentId, index);
    if (!status) throw new HttpProblem(404, 'Document not found', 'document_not_found');
    if (status.empty) throw new HttpProblem(404, 'Empty pipeline', 'document_not_found');
    return status;
  });

  app.delete<{ Querystring: DocumentQuery }>('/documents', async (request, reply) => {
    const { index, documentId } = documentParams(request.query, memory);
    await memory.deleteDocument(documentId, index);
    return reply
      .code(202)
      .header('location', uploadStatusLocation(index, documentId))
      .send({ index, documentId, message: 'Document deletion request received, pipeline started' });
  });

  app.get<{ Querystring: DocumentQuery }>('/download', async (request, reply) => {
    const { index, documentId } = documentParams(request.query, memory);
    const filename = request.query.filename?.trim();
    if (!filename) throw new HttpProblem(400, "'filename' query parameter is missing or has no value", 'invalid_file_name');
    validateFileName(filename);
    if (!flag(request.query.artifacts, 'artifacts')) await checkUploadedFile(memory, index, documentId, filename);
    const file = await memory.exportFile(documentId, filename, index);
    const lastModified = file.lastWrite.toUTCString();
    reply.header('accept-ranges', 'bytes');
    // If-Range: a range of the version the client has, or the whole file when it changed.
    const ifRange = request.headers['if-range'];
    const range = ifRange && ifRange !== lastModified ? { kind: 'full' as const } : parseRange(request.headers.range, file.size);
    if (range.kind === 'unsatisfiable') {
      reply.header('content-range', `bytes */${file.size}`);
      throw new HttpProblem(
        416,
        `the range ${JSON.stringify(request.headers.range)} is outside the file's ${file.size} bytes`,
        'range_not_satisfiable',
      );
    }
    const stream = range.kind === 'full' ? await file.getStream() : await openRange(memory, index, documentId, filename, range, file);
    // After the stream opened: an error before it is a problem response, not an attachment.
    reply
      .header('last-modified', lastModified)
      .header('content-type', file.fileType)
      .header('content-disposition', contentDisposition(filename));
    if (range.kind === 'full') return reply.header('content-length', String(file.size)).send(stream);
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
      .header('content-length', String(range.end - range.start + 1))
      .send(stream);
  });
}

/**
 * A range of a file: read by the content storage when it can seek, otherwise cut from the
 * whole stream (which is then destroyed once past the range, and on any error of either side).
 */
async function openRange(
  memory: MemoryService,
  index: string,
  documentId: string,
  filename: string,
  range: { start: number; end: number },
  file: StreamableFileContent,
): Promise<Readable> {
  const storage = memory.orchestrator.context.contentStorage;
  if (storage.supportsByteRanges) return storage.readFileStream(index, documentId, filename, { start: range.start, end: range.end });
  return sliceStream(await file.getStream(), range.start, range.end);
}

/**
 * Only the files a client uploaded are downloadable by default: the pipeline's state and the
 * files it derives (extracted text, partitions, embeddings), all named `..km.*` (see core's
 * `INTERNAL_FILE_PREFIX`), need `artifacts=true`. An upload named like one of them in an
 * earlier version's layout (`__pipeline_status.json`, `a.txt.extract.txt`) is the user's file.
 */
async function checkUploadedFile(memory: MemoryService, index: string, documentId: string, filename: string): Promise<void> {
  const pipeline = await memory.orchestrator.statusStore.read(index, documentId);
  if (!pipeline) throw new HttpProblem(404, `document "${documentId}" not found in index "${index}"`, 'document_not_found');
  if (!pipeline.files.some((f) => f.name === filename)) {
    throw new HttpProblem(
      404,
      `"${filename}" is not an uploaded file of document "${documentId}" (internal files need artifacts=true)`,
      'file_not_found',
    );
  }
}

/** A boolean query parameter: absent, `true`/`1` or `false`/`0`. */
function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new HttpProblem(400, `'${name}' must be true or false, got ${JSON.stringify(value)}`, 'invalid_argument');
}

/** `index` (normalised) and `documentId` (checked) of a request's query. */
export function documentParams(
  query: Pick<DocumentQuery, 'index' | 'documentId'>,
  memory: MemoryService,
): { index: string; documentId: string } {
  const documentId = query.documentId?.trim();
  if (!documentId) throw new HttpProblem(400, "'documentId' query parameter is missing or has no value", 'invalid_document_id');
  return { index: normalizeIndexNameLogged(query.index, memory.orchestrator.context.logger), documentId: validateDocumentId(documentId) };
}

/** `attachment` with an ASCII fallback and the UTF-8 name (RFC 6266). */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
