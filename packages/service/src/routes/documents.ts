import type { FastifyInstance } from 'fastify';
import { normalizeIndexName, validateDocumentId, validateFileName, type MemoryService } from '@km/core';
import { HttpProblem } from '../http/problem-details.js';
import { uploadStatusLocation } from './locations.js';

interface DocumentQuery {
  index?: string;
  documentId?: string;
  filename?: string;
}

/** `GET /upload-status`, `DELETE /documents` and `GET /download`. */
export function registerDocumentRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get<{ Querystring: DocumentQuery }>('/upload-status', async (request) => {
    const { index, documentId } = documentParams(request.query);
    const status = await memory.getDocumentStatus(documentId, index);
    if (!status) throw new HttpProblem(404, 'Document not found', 'document_not_found');
    if (status.empty) throw new HttpProblem(404, 'Empty pipeline', 'document_not_found');
    return status;
  });

  app.delete<{ Querystring: DocumentQuery }>('/documents', async (request, reply) => {
    const { index, documentId } = documentParams(request.query);
    await memory.deleteDocument(documentId, index);
    return reply
      .code(202)
      .header('location', uploadStatusLocation(index, documentId))
      .send({ index, documentId, message: 'Document deletion request received, pipeline started' });
  });

  app.get<{ Querystring: DocumentQuery }>('/download', async (request, reply) => {
    const { index, documentId } = documentParams(request.query);
    const filename = request.query.filename?.trim();
    if (!filename) throw new HttpProblem(400, "'filename' query parameter is missing or has no value", 'invalid_file_name');
    validateFileName(filename);
    const file = await memory.exportFile(documentId, filename, index);
    const stream = await file.getStream();
    return reply
      .header('content-type', file.fileType)
      .header('content-length', String(file.size))
      .header('last-modified', file.lastWrite.toUTCString())
      .header('content-disposition', contentDisposition(filename))
      .send(stream);
  });
}

function documentParams(query: DocumentQuery): { index: string; documentId: string } {
  const documentId = query.documentId?.trim();
  if (!documentId) throw new HttpProblem(400, "'documentId' query parameter is missing or has no value", 'invalid_document_id');
  return { index: normalizeIndexName(query.index), documentId: validateDocumentId(documentId) };
}

/** `attachment` with an ASCII fallback and the UTF-8 name (RFC 6266). */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
