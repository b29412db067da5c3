import { Parser } from 'htmlparser2';

/** Callbacks of a streaming XML read; tag names come without their namespace prefix. */
export interface XmlHandlers {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** Streams an XML part through `handlers` (entities decoded). */
export function readXml(xml: Uint8Array | string, handlers: XmlHandlers): void {
  const parser = new Parser(
    {
      onopentag: (name, attributes) => handlers.open?.(localName(name), stripPrefixes(attributes)),
      onclosetag: (name) => handlers.close?.(localName(name)),
      ontext: (text) => handlers.text?.(text),
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(typeof xml === 'string' ? xml : new TextDecoder().decode(xml));
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function stripPrefixes(attributes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) {
    // Keep `r:id` distinct from `id`: relationship ids are what links parts.
    out[key.startsWith('r:') ? key : localName(key)] = value;
  }
  return out;
}
