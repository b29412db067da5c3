import type { ContentSection, ExtractedContent } from '@km/core';
import { KmError } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, overLimit, unreadable } from './limits.js';
import { pagesAsMarkdown } from './pdf/pdf-headings.js';
import { pdfLines, type PdfLine, type PdfTextItem } from './pdf/pdf-lines.js';
import { removeRepeatedLines } from './pdf/repeated-lines.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;
const loadPdfJs = () => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

/**
 * PDF: the text of each page, through Mozilla's pdf.js, one section per page numbered as the
 * page, so citations carry the page number. Running headers and footers (lines repeated at the
 * top or bottom of most pages, page numbers included) are left out, and lines in a clearly
 * larger font become markdown headings, so the text is `text/markdown`; the title is the
 * document information's `Title`. Encrypted (password-protected) and corrupt files fail with a
 * reason that says which. Scanned pages without a text layer yield no text.
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
      const pages: PdfLine[][] = [];
      for (let number = 1; number <= pdf.numPages; number++) {
        checkAborted(signal);
        const page = await pdf.getPage(number);
        const content = await page.getTextContent();
        pages.push(pdfLines(content.items as PdfTextItem[]));
        page.cleanup();
      }
      const sections: ContentSection[] = [];
      pagesAsMarkdown(removeRepeatedLines(pages)).forEach((text, i) => {
        if (text) sections.push({ number: i + 1, text, sentencesAreComplete: false });
      });
      const title = await documentTitle(pdf);
      return { sections, mimeType: 'text/markdown', ...(title ? { title } : {}) };
    } catch (e) {
      checkAborted(signal);
      throw e instanceof KmError ? e : describePdfError(e);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await task.destroy();
    }
  }
}

/** The `Title` of the document information dictionary, when there is one. */
async function documentTitle(pdf: { getMetadata(): Promise<{ info: unknown }> }): Promise<string | undefined> {
  const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
  const title = typeof info?.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
  return title || undefined;
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
