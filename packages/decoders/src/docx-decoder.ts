import type { ContentSection, ExtractedContent } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, DEFAULT_LIMITS, TextBudget } from './limits.js';
import { markdownTable } from './ooxml/markdown-table.js';
import { OfficePackage, type OfficeParts } from './ooxml/office-package.js';
import { readXml, type XmlSource } from './ooxml/xml.js';

export const DOCX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const DOCUMENT_PART = 'word/document.xml';
/** The parts of a Word file read: the document only. */
const WORD_PARTS: OfficeParts = { mainPart: DOCUMENT_PART, wanted: (name) => name === DOCUMENT_PART };

/**
 * Word (.docx): paragraphs, headings as markdown headings (`Heading1`..`Heading9`, `Title`,
 * outline levels), list items as `- `, tables as markdown tables. The title is the core
 * properties' `dc:title`, else a first paragraph styled `Title` or `Heading1`. Sections follow the page
 * breaks Word recorded (explicit breaks and the last rendered layout), so `sectionNumber` is
 * the page as Word last laid it out.
 */
export class DocxDecoder extends LimitedDecoder {
  readonly name = 'docx';
  protected readonly format = 'Word';
  protected readonly mimeTypes: ReadonlySet<string> = new Set([DOCX_MIME_TYPE]);

  protected async decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined): Promise<ExtractedContent> {
    const word = new OfficePackage(data, WORD_PARTS, this.limits, this.format, signal);
    checkAborted(signal);
    const sections = docxSections(word.main, this.limits.maxTextChars);
    // Else a first paragraph styled Title or Heading1 (a `# ` line).
    const title = word.title ?? /^# (.+)/.exec(sections[0]?.text ?? '')?.[1]?.trim();
    return { sections, mimeType: 'text/markdown', ...(title ? { title } : {}) };
  }
}

/**
 * Walks document.xml and returns its text as markdown, split at page breaks; more than
 * `maxTextChars` characters (tables are padded to their widest row) fail with `content_too_large`.
 */
export function docxSections(xml: XmlSource, maxTextChars = DEFAULT_LIMITS.maxTextChars): ContentSection[] {
  const budget = new TextBudget(maxTextChars, 'Word');
  const pages: string[][] = [[]];
  let paragraph = '';
  let inText = false;
  let heading = 0;
  let listItem = false;
  let breakBefore = false;
  let breakAfter = false;
  let tableDepth = 0;
  let rows: string[][] = [];
  let row: string[] | undefined;
  let cell: string[] | undefined;

  const newPage = () => {
    if (pages[pages.length - 1]!.length > 0) pages.push([]);
  };
  const emit = (block: string) => {
    budget.take(block.length + 2);
    pages[pages.length - 1]!.push(block);
  };

  readXml(xml, {
    open(name, a) {
      switch (name) {
        case 'p':
          paragraph = '';
          heading = 0;
          listItem = false;
          break;
        case 'pStyle': {
          const style = a.val ?? '';
          const match = /^heading\s?(\d)$/i.exec(style);
          if (match) heading = Number(match[1]);
          else if (/^title$/i.test(style)) heading = 1;
          else if (/^subtitle$/i.test(style)) heading = 2;
          break;
        }
        case 'outlineLvl':
          if (!heading && a.val !== undefined && Number(a.val) < 9) heading = Number(a.val) + 1;
          break;
        case 'numPr':
          listItem = true;
          break;
        case 't':
          inText = true;
          break;
        case 'tab':
          if (tableDepth === 0 || cell) paragraph += '\t';
          break;
        case 'br':
        case 'cr':
          if (a.type === 'page') {
            if (paragraph.trim() === '' && tableDepth === 0) breakBefore = true;
            else breakAfter = true;
          } else paragraph += '\n';
          break;
        case 'lastRenderedPageBreak':
          if (tableDepth === 0) {
            if (paragraph.trim() === '') breakBefore = true;
            else breakAfter = true;
          }
          break;
        case 'tbl':
          tableDepth++;
          if (tableDepth === 1) rows = [];
          break;
        case 'tr':
          if (tableDepth === 1) row = [];
          break;
        case 'tc':
          if (tableDepth === 1) cell = [];
          break;
      }
    },
    text(text) {
      if (inText) paragraph += text;
    },
    close(name) {
      switch (name) {
        case 't':
          inText = false;
          break;
        case 'p': {
          const text = paragraph.replace(/[ \t]+\n/g, '\n').trim();
          if (tableDepth > 0) {
            if (text && cell) cell.push(text);
            break;
          }
          if (breakBefore) newPage();
          breakBefore = false;
          if (text) emit(heading ? `${'#'.repeat(Math.min(heading, 6))} ${text}` : listItem ? `- ${text}` : text);
          if (breakAfter) newPage();
          breakAfter = false;
          break;
        }
        case 'tc':
          if (tableDepth === 1 && row && cell) row.push(cell.join(' '));
          cell = undefined;
          break;
        case 'tr':
          if (tableDepth === 1 && row) rows.push(row);
          row = undefined;
          break;
        case 'tbl':
          tableDepth--;
          if (tableDepth === 0 && rows.length > 0) emit(markdownTable(rows, budget));
          break;
      }
    },
  });
  return pages
    .map((blocks, i) => ({ number: i + 1, text: blocks.join('\n\n'), sentencesAreComplete: true }))
    .filter((s) => s.text.trim() !== '');
}
