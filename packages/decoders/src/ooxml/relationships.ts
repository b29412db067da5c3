import { posix } from 'node:path';
import { readXml, type XmlSource } from './xml.js';

/** One relationship of a part: the absolute path of its target and its type URI. */
export interface Relationship {
  target: string;
  type: string;
}

/** The `.rels` file of a part: `word/document.xml` → `word/_rels/document.xml.rels`. */
export function relsPathOf(part: string): string {
  return posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);
}

/** Relationship id → target (absolute part path) and type, from a part's `.rels` XML. */
export function readRelationships(xml: XmlSource | undefined, part: string): Map<string, Relationship> {
  const relationships = new Map<string, Relationship>();
  if (!xml) return relationships;
  readXml(xml, {
    open(name, attributes) {
      if (name !== 'Relationship' || !attributes.Id || !attributes.Target || attributes.TargetMode === 'External') return;
      const target = attributes.Target.startsWith('/') ? attributes.Target.slice(1) : posix.join(posix.dirname(part), attributes.Target);
      relationships.set(attributes.Id, { target: posix.normalize(target), type: attributes.Type ?? '' });
    },
  });
  return relationships;
}

/** The first target whose type ends with `/{kind}` (e.g. `notesSlide`). */
export function targetOfType(relationships: Map<string, Relationship>, kind: string): string | undefined {
  for (const r of relationships.values()) if (r.type.endsWith(`/${kind}`)) return r.target;
  return undefined;
}
