import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/index.js';
import { DecoderRegistry, HtmlDecoder, JsonDecoder, PlainTextDecoder, htmlToMarkdown } from '../src/connector.js';

describe('htmlToMarkdown', () => {
  it('keeps headings and lists as markdown and drops scripts and styles', () => {
    const html = `<html><head><title>T</title><style>p{}</style></head><body>
      <h1>Main &amp; title</h1><p>Intro <b>text</b>.</p><script>alert(1)</script>
      <h2>List</h2><ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>
      <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>`;
    const md = htmlToMarkdown(html);
    expect(md).toContain('# Main & title');
    expect(md).toContain('Intro text.');
    expect(md).toContain('## List');
    expect(md).toContain('- one');
    expect(md).toContain('  1. nested');
    expect(md).toContain('a | b');
    expect(md).toContain('1 | 2');
    expect(md).not.toContain('alert');
    expect(md).not.toContain('p{}');
  });

  it('uses the title as first heading when the body has none', () => {
    expect(htmlToMarkdown('<title>Hello</title><p>World</p>')).toBe('# Hello\n\nWorld');
  });
});

describe('decoders', () => {
  it('the registry finds the decoder of each core type', () => {
    const registry = DecoderRegistry.withDefaults();
    expect(registry.find('text/plain')).toBeInstanceOf(PlainTextDecoder);
    expect(registry.find('text/html; charset=utf-8')).toBeInstanceOf(HtmlDecoder);
    expect(registry.find('application/json')).toBeInstanceOf(JsonDecoder);
    expect(registry.find('text/markdown')?.name).toBe('markdown');
    expect(registry.find('application/pdf')).toBeUndefined();
  });

  it('refuses binary data labelled as text with a reason; indexes JSON that does not parse as its text', async () => {
    await expect(new PlainTextDecoder().decode(Buffer.from([0x41, 0x00, 0x42]))).rejects.toSatisfy((e: unknown) =>
      isKmError(e, 'unsupported_content'),
    );
    expect((await new JsonDecoder().decode(Buffer.from('{"a":'))).sections[0]!.text).toBe('{"a":');
  });

  it('drops a UTF-8 BOM', async () => {
    const out = await new PlainTextDecoder().decode(Buffer.from('\ufeffhello'));
    expect(out.sections[0]!.text).toBe('hello');
  });
});
