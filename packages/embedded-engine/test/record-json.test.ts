import { describe, expect, it } from 'vitest';
import { readDeleteJson, readRecordJson } from '../src/record-json.js';

/** The entry text the record log writes. */
const entryText = (id: string, tags: unknown, payload: unknown) =>
  `{"id":${JSON.stringify(id)},"tags":${JSON.stringify(tags)},"payload":${JSON.stringify(payload)}}`;

describe('readRecordJson', () => {
  const cases: Array<[string, Record<string, Array<string | null>>, unknown]> = [
    ['r1', { g: ['1'] }, { n: 1 }],
    ['d=doc//p=0', {}, { text: 'The Moon, "quoted" \\ and \n lines', n: [1, 2, { a: null }] }],
    ['ünï ✓ 🚀', { user: ['alice', 'bob'], empty: [], none: [null], 'key with spaces': ['null', 'a,b]}'] }, {}],
    ['x', { g: ['1'] }, null],
    ['x', { constructor: ['c'], toString: ['t'] }, { s: '}{"]\\', t: ['{', { u: '\\"}' }], v: '' }],
  ];
  it.each(cases)('reads %j exactly as JSON.parse does, keeping the payload text', (id, tags, payload) => {
    const text = entryText(id, tags, payload);
    const read = readRecordJson(text);
    const parsed = JSON.parse(text) as { id: string; tags: unknown; payload: unknown };
    expect(read).toEqual({ id: parsed.id, tags: parsed.tags, payloadJson: JSON.stringify(parsed.payload ?? {}) });
  });

  it('declines (undefined) what it cannot read without parsing: escapes, whitespace, other shapes', () => {
    expect(readRecordJson(entryText('a"b', {}, {}))).toBeUndefined();
    expect(readRecordJson(entryText('a', { 'k"': ['v'] }, {}))).toBeUndefined();
    expect(readRecordJson(entryText('a', { k: ['v\\w'] }, {}))).toBeUndefined();
    expect(readRecordJson('{"id": "a","tags":{},"payload":{}}')).toBeUndefined();
    expect(readRecordJson('{"id":"a","tags":{"k":"v"},"payload":{}}')).toBeUndefined();
    expect(readRecordJson('{"id":"a","tags":{"__proto__":["v"]},"payload":{}}')).toBeUndefined();
    expect(readRecordJson('{"tags":{},"id":"a","payload":{}}')).toBeUndefined();
    expect(readRecordJson('{"id":"a","tags":{}}')).toBeUndefined();
  });

  it('declines an entry whose payload is not exactly null or one object ending at the closing brace', () => {
    const declined = [
      '{"id":"a","tags":{},"payload":{"text":"hi"},"extra":{"y":1}}',
      '{"id":"a","tags":{},"payload":}',
      '{"id":"a","tags":{"g":["1"]},"payload":{},"tags":{"g":["2"]}}',
      '{"id":"a","tags":{},"payload":{"a":1}}}',
      '{"id":"a","tags":{},"payload":{"a":"}"}',
      '{"id":"a","tags":{},"payload":{"a":"\\"}"}',
      '{"id":"a","tags":{},"payload":{"a":[1}]}',
      '{"id":"a","tags":{},"payload":nullx}',
      '{"id":"a","tags":{},"payload":"a string payload"}',
      '{"id":"a","tags":{},"payload":[1]}',
      '{"id":"a","tags":{},"payload":7}',
    ];
    for (const text of declined) expect(readRecordJson(text), text).toBeUndefined();
  });
});

describe('readDeleteJson', () => {
  it('reads a plain id and declines escaped ones', () => {
    expect(readDeleteJson(JSON.stringify({ id: 'd=doc//p=3 ✓' }))).toBe('d=doc//p=3 ✓');
    expect(readDeleteJson(JSON.stringify({ id: 'a"b' }))).toBeUndefined();
    expect(readDeleteJson(JSON.stringify({ id: 'a\\b' }))).toBeUndefined();
  });
});
