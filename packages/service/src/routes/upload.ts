import type { FastifyInstance } from 'fastify';
import { Document, normalizeIndexNameLogged, type MemoryService } from '@km/core';
import { readFile } from 'node:fs/promises';
import { HttpProblem } from '../http/problem-details.js';
import { suspendIdleTimeout } from '../http/connection-limits.js';
import { readUploadForm } from '../http/upload-form.js';
import { uploadStatusLocation } from './locations.js';

/** KM clients import a web page by uploading a file with this name that holds the URL. */
const WEB_PAGE_FILE = 'content.url';

/** Limits of `POST /upload`. */
export interface UploadRouteOptions {
  maxUploadBytes: number;
  spoolDirectory: string;
  minBytesPerSecond?: number;
  minRateGraceMs?: number;
  connectionTimeoutMs?: number;
}

/** `POST /upload`: stores the files, queues the pipeline, answers 202 with the status URL. */
export function registerUploadRoute(app: FastifyInstance, memory: MemoryService, options: UploadRouteOptions): void {
  app.post('/upload', async (request, reply) => {
    const form = await readUploadForm(request, {
      maxBytes: options.maxUploadBytes,
      spoolDirectory: options.spoolDirectory,
      ...(options.minBytesPerSecond !== undefined ? { minBytesPerSecond: options.minBytesPerSecond } : {}),
      ...(options.minRateGraceMs !== undefined ? { minRateGraceMs: options.minRateGraceMs } : {}),
    });
    // The body is read: storing it may take a while, which the idle timeout must not cut.
    suspendIdleTimeout(request.raw, reply.raw, options.connectionTimeoutMs ?? 0);
    let index: string;
    let documentId: string;
    try {
      if (form.files.length === 0) throw new HttpProblem(400, 'No file was uploaded', 'invalid_argument');
      index = normalizeIndexNameLogged(form.index, memory.orchestrator.context.logger);
      const document = new Document(form.documentId ?? kmDocumentId());
      documentId = document.id;
      const importOptions = { index, tags: form.tags, steps: form.steps, args: form.args };
      if (form.files.length === 1 && form.files[0]!.name === WEB_PAGE_FILE) {
        const url = (await readFile(form.files[0]!.path, 'utf8')).trim();
        await memory.importWebPage(url, { ...importOptions, documentId });
      } else {
        for (const file of form.files) document.addFile(file.path, file.name, file.mimeType);
        await memory.importDocument(document, importOptions);
      }
    } finally {
      // Before answering: once the client has its 202, no spooled file is left. A failure to
      // remove it does not undo the import: it is logged, and the next start removes the folder.
      await form.cleanup().catch((error: unknown) => request.log.warn({ err: error }, 'could not remove the spooled upload'));
    }
    return reply
      .code(202)
      .header('location', uploadStatusLocation(index, documentId))
      .send({ index, documentId, message: 'Document upload completed, ingestion pipeline started' });
  });
}

/** Kernel Memory's id for an upload without one: `yyyyMMdd.HHmmss.` and 32 hex digits. */
function kmDocumentId(): string {
  const now = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}.${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}.${crypto.randomUUID().replaceAll('-', '')}`;
}
