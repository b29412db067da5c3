import type { ContentSection, ExtractedContent } from '@km/core';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, overLimit, TextBudget } from './limits.js';
import { OfficePackage, type OfficeParts } from './ooxml/office-package.js';
import { targetOfType } from './ooxml/relationships.js';
import { readXml, type XmlSource } from './ooxml/xml.js';

export const PPTX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const PRESENTATION = 'ppt/presentation.xml';
/** The parts of a PowerPoint file read: the presentation, slides, notes and their relationships; not layouts nor masters. */
const POWERPOINT_PARTS: OfficeParts = {
  mainPart: PRESENTATION,
  wanted: (name) =>
    name.startsWith('ppt/') &&
    (name.endsWith('.xml') || name.endsWith('.rels')) &&
    !name.startsWith('ppt/slideLayouts/') &&
    !name.startsWith('ppt/slideMasters/'),
};

/**
 * PowerPoint (.pptx): one section per slide, numbered as in the deck (hidden slides included),
 * with the slide title as a heading, the text of every shape and table, and the speaker notes.
 * The title is the core properties' `dc:title`.
 */
export class PptxDecoder extends LimitedDecoder {
  readonly name = 'pptx';
  protected readonly format = 'PowerPoint';
  protected readonly mimeTypes: ReadonlySet<string> = new Set([PPTX_MIME_TYPE]);

  protected async decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined): Promise<ExtractedContent> {
    const deck = new OfficePackage(data, POWERPOINT_PARTS, this.limits, this.format, signal);
    const slideIds = deck.listed('sldId', (id) => id);
    if (slideIds.length > this.limits.maxPages)
      throw overLimit(`the presentation (${slideIds.length} slides)`, 'maxPages', this.limits.maxPages);
    const budget = new TextBudget(this.limits.maxTextChars, this.format);
    const sections: ContentSection[] = [];
    slideIds.forEach((id, i) => {
      checkAborted(signal);
      const slide = deck.target(id);
      if (!slide) return;
      const { title, body } = slideText(slide.xml, false);
      const notesPath = targetOfType(deck.relationshipsOf(slide.path), 'notesSlide');
      const notesXml = notesPath ? deck.parts.get(notesPath) : undefined;
      const notes = notesXml ? slideText(notesXml, true).body : [];
      const lines = [`## Slide ${i + 1}${title.length ? `: ${title.join(' ')}` : ''}`, ...body];
      if (notes.length) lines.push('', `Speaker notes: ${notes.join('\n')}`);
      budget.take(lines.reduce((n, line) => n + line.length + 1, 0));
      sections.push({ number: i + 1, text: lines.join('\n'), sentencesAreComplete: true });
    });
    return { sections, mimeType: 'text/markdown', ...(deck.title ? { title: deck.title } : {}) };
  }
}

/** Paragraphs of a slide (title apart), or of a notes page (its body placeholder only). */
function slideText(xml: XmlSource, notes: boolean): { title: string[]; body: string[] } {
  const title: string[] = [];
  const body: string[] = [];
  let placeholder: string | undefined;
  let paragraph = '';
  let inText = false;
  let shapeDepth = 0;
  readXml(xml, {
    open(name, a) {
      if (name === 'sp') {
        shapeDepth++;
        placeholder = undefined;
      } else if (name === 'ph') placeholder = a.type ?? 'body';
      else if (name === 'p') paragraph = '';
      else if (name === 't') inText = true;
      else if (name === 'br') paragraph += '\n';
    },
    text(text) {
      if (inText) paragraph += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'sp') shapeDepth--;
      else if (name === 'p') {
        const text = paragraph.trim();
        if (!text) return;
        const isTitle = placeholder === 'title' || placeholder === 'ctrTitle';
        if (notes) {
          if (placeholder === 'body') body.push(text);
        } else if (isTitle && shapeDepth > 0) title.push(text);
        else if (placeholder !== 'sldNum' && placeholder !== 'dt' && placeholder !== 'ftr') body.push(text);
      }
    },
  });
  return { title, body };
}
