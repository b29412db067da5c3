import { unreadable, type DecoderLimits } from '../limits.js';
import { readZipParts } from '../zip/safe-unzip.js';
import { CORE_PROPERTIES_PART, coreTitle } from './core-properties.js';
import { readRelationships, relsPathOf, type Relationship } from './relationships.js';
import { readXml } from './xml.js';

/** The parts of an Office (OOXML) format a decoder reads. */
export interface OfficeParts {
  /** The part every file of the format holds, e.g. `word/document.xml`. */
  mainPart: string;
  /** True for the zip entries to inflate; the main part (and its relationships, when used) must be among them. */
  wanted: (name: string) => boolean;
}

/**
 * An Office file opened for reading: the parts `wanted` selects and the core properties,
 * inflated under every zip limit (see `readZipParts`), its main part, which it must hold, the
 * main part's relationships, and the title its core properties give.
 */
export class OfficePackage {
  /** The parts read, by path. */
  readonly parts: Map<string, Uint8Array[]>;
  /** The main part, as read. */
  readonly main: Uint8Array[];
  /** The relationships of the main part, by id. */
  readonly relationships: Map<string, Relationship>;
  /** The document's title (`dc:title` of `docProps/core.xml`), when set. */
  readonly title: string | undefined;

  constructor(data: Uint8Array, { mainPart, wanted }: OfficeParts, limits: DecoderLimits, format: string, signal: AbortSignal | undefined) {
    this.parts = readZipParts(data, (name) => name === CORE_PROPERTIES_PART || wanted(name), limits, format, signal);
    const main = this.parts.get(mainPart);
    if (!main) throw unreadable(format, `${mainPart} is missing`);
    this.main = main;
    this.relationships = this.relationshipsOf(mainPart);
    this.title = coreTitle(this.parts.get(CORE_PROPERTIES_PART));
  }

  /** The relationships of a part, by id (none when the file has no `.rels` for it, or it was not read). */
  relationshipsOf(part: string): Map<string, Relationship> {
    return readRelationships(this.parts.get(relsPathOf(part)), part);
  }

  /**
   * What `pick` keeps of every `<element r:id="…">` of the main part, in order (the slides of a
   * presentation, the sheets of a workbook): its relationship id, its attributes, and how many
   * elements were kept before it.
   */
  listed<T>(element: string, pick: (id: string, attributes: Record<string, string>, index: number) => T): T[] {
    const listed: T[] = [];
    readXml(this.main, {
      open(name, a) {
        const id = a['r:id'];
        if (name === element && id) listed.push(pick(id, a, listed.length));
      },
    });
    return listed;
  }

  /** The path and content of the part that a relationship of the main part targets, when the file holds it. */
  target(id: string): { path: string; xml: Uint8Array[] } | undefined {
    const path = this.relationships.get(id)?.target;
    const xml = path ? this.parts.get(path) : undefined;
    return path && xml ? { path, xml } : undefined;
  }
}
