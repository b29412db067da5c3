import { afterAll, describe, expect, it } from 'vitest';
import { ImageOcrDecoder } from '../src/index.js';
import { renderTextPng } from './fixtures/text-png.js';

describe('ImageOcrDecoder (tesseract.js, offline language data)', () => {
  const ocr = new ImageOcrDecoder();
  afterAll(() => ocr.close());

  it('reads back the text of a PNG rendered by the test', async () => {
    const png = renderTextPng(['Invoice 4821 for the Moon landing', 'Total due: 175 euros']);
    const { sections } = await ocr.decode(png);
    expect(sections).toHaveLength(1);
    expect(sections[0]!.text).toContain('Invoice 4821 for the Moon landing');
    expect(sections[0]!.text).toContain('Total due: 175 euros');
  });

  it('a file that is not an image fails with a clear error, and the decoder keeps working', async () => {
    await expect(ocr.decode(Buffer.from('\x89PNG\r\n\x1a\n-not really a png-'))).rejects.toMatchObject({ code: 'unsupported_content' });
    const { sections } = await ocr.decode(renderTextPng(['Hello again']));
    expect(sections[0]!.text).toContain('Hello again');
  });

  it('refuses an image with too many pixels before OCR', async () => {
    const small = new ImageOcrDecoder({ limits: { maxImagePixels: 1000 } });
    await expect(small.decode(renderTextPng(['Big']))).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/maxImagePixels/),
    });
  });

  it('without an OCR engine, images fail with not_configured saying what to install', async () => {
    const missing = new ImageOcrDecoder({}, () => Promise.reject(new Error("Cannot find package 'tesseract.js'")));
    const error = await missing.decode(renderTextPng(['X'])).catch((e) => e);
    expect(error).toMatchObject({ code: 'not_configured' });
    expect(error.message).toMatch(/tesseract\.js/);
    await missing.close();
  });
});
