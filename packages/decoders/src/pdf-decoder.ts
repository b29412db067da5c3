import type { ContentSection, ExtractedContent } from '@km/core';
import { KmError } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, overLimit, unreadable } from './limits.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * PDF: the text of each page, through Mozilla's pdf.js, one section per page numbered as the
 * page, so citations carry the page number. Encrypted (password-protected) and corrupt files
 * fail with a reason that says which. Scanned pages without a text layer yield no text.
 */
export class PdfDecoder extends LimitedDecoder {
  readonly name = 'pdf';
  protected readonly format = 'PDF';
  protected readonly mimeTypes: ReadonlySet<string> = new Set(['application/pdf']);

  protected async decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined): Promise<ExtractedContent> {
    if (data.subarray(0, 1024).indexOf('%PDF-') < 0) throw unreadable('PDF', 'it has no PDF header');
    // pdf.js recovers what it can from a cut file; a partial document must not pass as whole.
    if (data.subarray(Math.max(0, data.length - 4096)).indexOf('%%EOF') < 0)
      throw unreadable('PDF', 'it is truncated (no end-of-file marker)');
    const { getDocument } = await loadPdfJs();
    const task = getDocument({
      data: new Uint8Array(data),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    });
    const onAbort = () => void task.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const pdf = await task.promise.catch((e: unknown) => {
        throw describePdfError(e);
      });
      if (pdf.numPages > this.limits.maxPages) throw overLimit(`the PDF (${pdf.numPages} pages)`, 'maxPages', this.limits.maxPages);
      const sections: ContentSection[] = [];
      for (let number = 1; number <= pdf.numPages; number++) {
        checkAborted(signal);
        const page = await pdf.getPage(number);
        const content = await page.getTextContent();
        const text = pageText(content.items as TextItem[]);
        page.cleanup();
        if (text) sections.push({ number, text, sentencesAreComplete: false });
      }
      return { sections, mimeType: 'text/plain' };
    } catch (e) {
      checkAborted(signal);
      throw e instanceof KmError ? e : describePdfError(e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await task.destroy();
    }
  }
}

function pageText(items: TextItem[]): string {
  let text = '';
  for (const item of items) {
    if (typeof item.str === 'string') text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function describePdfError(e: unknown): KmError {
  const name = (e as { name?: string })?.name ?? '';
  const message = e instanceof Error ? e.message : String(e);
  if (name === 'PasswordException')
    return new KmError('unsupported_content', 'the PDF is encrypted (password protected); km cannot read it', { cause: e });
  if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'UnknownErrorException')
    return unreadable('PDF', `it is corrupt or truncated (${message})`, e);
  return unreadable('PDF', message, e);
}
