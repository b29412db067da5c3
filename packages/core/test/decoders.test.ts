import { describe, expect, it } from 'vitest';
import { isKmError } from '../src/index.js';
import { DecoderRegistry, HtmlDecoder, JsonDecoder, MarkdownDecoder, PlainTextDecoder, htmlToMarkdown } from '../src/connector.js';

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

  it('leaves out navigation, the page header and footer, asides, forms and link lists, not the article', () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `<li><a href="/p${i}">Product ${i}</a></li>`).join('');
    const html = `<html><head><title>Pricing</title></head><body>
      <header><a href="/">ACME</a> Welcome to ACME</header>
      <nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li></ul></nav>
      <div class="menu"><ul>${links(6)}</ul></div>
      <main><article>
        <header><h1>Pricing plans</h1><p>Updated in May.</p></header>
        <p>The basic plan costs 10 euros a month and includes <a href="/support">email support</a>.</p>
        <h2>Related</h2><ul>${links(5)}</ul>
        <footer>Written by the sales team.</footer>
      </article>
      <aside>Sponsored: buy more.</aside>
      <form><label>Search</label><input name="q"></form>
      </main>
      <div role="navigation"><a href="/sitemap">Sitemap</a></div>
      <footer><p>Copyright ACME. <a href="/privacy">Privacy</a></p></footer>
    </body></html>`;
    const md = htmlToMarkdown(html);
    expect(md).toBe(
      [
        '# Pricing plans',
        'Updated in May.',
        'The basic plan costs 10 euros a month and includes email support.',
        '## Related',
        'Written by the sales team.',
      ].join('\n\n'),
    );
  });

  it('keeps the links of a page that is only links', () => {
    const html = `<title>Bookmarks</title><ul>${['a', 'b', 'c', 'd', 'e'].map((x) => `<li><a href="/${x}">Site ${x}</a></li>`).join('')}</ul>`;
    expect(htmlToMarkdown(html)).toBe('# Bookmarks\n\n- Site a\n- Site b\n- Site c\n- Site d\n- Site e');
  });
});

describe('document titles', () => {
  it('markdown: front matter title, else a first heading of level 1', async () => {
    const md = new MarkdownDecoder();
    expect((await md.decode(Buffer.from('---\ntitle: "Leave policy"\n---\n\n## Intro\n\nText.'))).title).toBe('Leave policy');
    expect((await md.decode(Buffer.from('Badges\n\n# Handbook\n\n## Leave'))).title).toBe('Handbook');
    expect((await md.decode(Buffer.from('## Leave\n\n# Later'))).title).toBeUndefined();
  });

  it('HTML: the <title>, else the first <h1>', async () => {
    expect((await new HtmlDecoder().decode(Buffer.from('<title>Volcanoes</title><p>Lava.</p>'))).title).toBe('Volcanoes');
    expect((await new HtmlDecoder().decode(Buffer.from('<h1>Etna</h1><p>Lava.</p>'))).title).toBe('Etna');
  });

  it('plain text: a short first line followed by a blank line, not a sentence', async () => {
    const title = async (text: string) => (await new PlainTextDecoder().decode(Buffer.from(text))).title;
    expect(await title('Travel policy 2024\n\nBook trains over flights.')).toBe('Travel policy 2024');
    expect(await title('Book trains over flights.\n\nAlways.')).toBeUndefined();
    expect(await title('Dear team,\n\nHello.')).toBeUndefined();
    expect(await title('Travel policy\nBook trains.')).toBeUndefined();
    expect(await title(`${'Long '.repeat(30)}\n\nText.`)).toBeUndefined();
    expect(await title('Only a line')).toBeUndefined();
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
