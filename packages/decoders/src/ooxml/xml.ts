import { KmError } from '@km/core';
import { Parser } from 'htmlparser2';

/** Callbacks of a streaming XML read; tag names come without their namespace prefix. */
export interface XmlHandlers {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** Deepest element nesting read (Office parts nest a few dozen levels; a nesting bomb millions). */
export const MAX_XML_DEPTH = 1_000;
/** Bytes handed to the parser at a time, so a large part is never one giant string. */
const XML_SLICE_BYTES = 64 * 1024;

/** An XML part: text, UTF-8 bytes, or UTF-8 bytes in chunks as they were inflated (never joined). */
export type XmlSource = string | Uint8Array | Iterable<Uint8Array>;

/**
 * Streams an XML part through `handlers` (entities decoded). The part is decoded and parsed
 * in slices, chunk by chunk (a character split across chunks is decoded whole), and nesting
 * deeper than {@link MAX_XML_DEPTH} fails with `content_too_large`.
 */
export function readXml(xml: XmlSource, handlers: XmlHandlers): void {
  let depth = 0;
  const parser = new Parser(
    {
      onopentag: (name, attributes) => {
        if (++depth > MAX_XML_DEPTH)
          throw new KmError('content_too_large', `an XML part nests elements deeper than ${MAX_XML_DEPTH} levels`);
        handlers.open?.(localName(name), stripPrefixes(attributes));
      },
      onclosetag: (name) => {
        depth--;
        handlers.close?.(localName(name));
      },
      ontext: (text) => handlers.text?.(text),
    },
    { xmlMode: true, decodeEntities: true },
  );
  if (typeof xml === 'string') {
    parser.end(xml);
    return;
  }
  const decoder = new TextDecoder();
  for (const chunk of xml instanceof Uint8Array ? [xml] : xml) {
    for (let offset = 0; offset < chunk.length; offset += XML_SLICE_BYTES) {
      parser.write(decoder.decode(chunk.subarray(offset, offset + XML_SLICE_BYTES), { stream: true }));
    }
  }
  parser.end(decoder.decode());
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
