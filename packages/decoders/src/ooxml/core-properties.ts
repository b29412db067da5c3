import { readXml, type XmlSource } from './xml.js';

/** Where an Office file keeps its core properties (title, author, dates). */
export const CORE_PROPERTIES_PART = 'docProps/core.xml';

/** The `dc:title` of an Office file's core properties, when set. */
export function coreTitle(xml: XmlSource | undefined): string | undefined {
  if (!xml) return undefined;
  let title = '';
  let inTitle = false;
  readXml(xml, {
    open(name) {
      inTitle = name === 'title';
    },
    text(text) {
      if (inTitle) title += text;
    },
    close() {
      inTitle = false;
    },
  });
  return title.replace(/\s+/g, ' ').trim() || undefined;
}
