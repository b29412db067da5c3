import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, createServiceLogger, formatLogLine } from '../src/logging.js';

/** A stream that keeps what is written, optionally claiming to be a terminal. */
function sink(isTTY = false): Writable & { text: () => string; isTTY?: boolean } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { text: () => string; isTTY?: boolean };
  stream.text = () => chunks.join('');
  if (isTTY) stream.isTTY = true;
  return stream;
}

/** The ISO time of a local wall-clock time, so the expected `HH:MM:SS` holds in any time zone. */
const localIso = (h: number, m: number, s: number) => new Date(2026, 0, 2, h, m, s).toISOString();

describe('formatLogLine', () => {
  it('writes HH:MM:SS level message key=value, without the fields every line has', () => {
    const line = JSON.stringify({
      level: 30,
      time: localIso(9, 5, 7),
      service: 'km',
      msg: 'km service listening',
      url: 'http://127.0.0.1:9001',
      runHandlers: true,
      port: 9001,
    });
    expect(formatLogLine(line)).toBe('09:05:07 info  km service listening url=http://127.0.0.1:9001 runHandlers=true port=9001');
  });

  it('quotes values with spaces, flattens nested fields, keeps arrays as JSON', () => {
    const line = JSON.stringify({
      level: 40,
      time: localIso(23, 59, 0),
      msg: 'slow request',
      reason: 'took a while',
      req: { method: 'GET', url: '/ask' },
      steps: ['extract', 'partition'],
      empty: '',
    });
    expect(formatLogLine(line)).toBe(
      '23:59:00 warn  slow request reason="took a while" req.method=GET req.url=/ask steps=["extract","partition"] empty=""',
    );
  });

  it('shows an error by its message, its stack on indented lines after', () => {
    const line = JSON.stringify({
      level: 50,
      time: localIso(1, 2, 3),
      msg: 'step failed',
      err: { type: 'Error', message: 'disk full', stack: 'Error: disk full\n    at write (file.js:1:1)\n    at run (file.js:2:2)' },
    });
    expect(formatLogLine(line)).toBe('01:02:03 error step failed err="disk full"\n    at write (file.js:1:1)\n    at run (file.js:2:2)');
  });

  it('colours the level and time only when asked', () => {
    const line = JSON.stringify({ level: 50, time: localIso(1, 2, 3), msg: 'x' });
    expect(formatLogLine(line, { colors: true })).toBe('\u001b[2m01:02:03\u001b[0m \u001b[31merror\u001b[0m x');
  });

  it('returns a line that is not JSON as it is', () => {
    expect(formatLogLine('plain text\n')).toBe('plain text');
  });
});

describe('chooseLogFormat', () => {
  it('is pretty on a terminal and JSON otherwise', () => {
    expect(chooseLogFormat(true, {})).toBe('pretty');
    expect(chooseLogFormat(false, {})).toBe('json');
  });

  it('follows KM_LOG_FORMAT either way', () => {
    expect(chooseLogFormat(true, { KM_LOG_FORMAT: 'json' })).toBe('json');
    expect(chooseLogFormat(false, { KM_LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(chooseLogFormat(false, { KM_LOG_FORMAT: ' Pretty ' })).toBe('pretty');
  });

  it('rejects an unknown KM_LOG_FORMAT, naming it', () => {
    expect(() => chooseLogFormat(true, { KM_LOG_FORMAT: 'xml' })).toThrow(/KM_LOG_FORMAT must be json or pretty, got "xml"/);
  });
});

describe('createServiceLogger', () => {
  it('writes JSON lines to a stream that is not a terminal', () => {
    const out = sink();
    createServiceLogger('info', out).info({ documentId: 'doc1' }, 'uploaded');
    const record = JSON.parse(out.text()) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 30, msg: 'uploaded', documentId: 'doc1', service: 'km' });
    expect(typeof record.time).toBe('string');
  });

  it('writes readable lines to a terminal, and JSON there when told to', () => {
    const terminal = sink(true);
    const previous = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
    try {
      createServiceLogger('info', terminal).info({ documentId: 'doc1' }, 'uploaded');
    } finally {
      if (previous === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = previous;
    }
    expect(terminal.text()).toMatch(/^\d\d:\d\d:\d\d info {2}uploaded documentId=doc1\n$/);
    const forced = sink(true);
    createServiceLogger('info', forced, 'json').info('hello');
    expect(JSON.parse(forced.text())).toMatchObject({ msg: 'hello' });
  });

  it('writes readable lines to any stream when told to, at the level asked', () => {
    const out = sink();
    const logger = createServiceLogger('warn', out, 'pretty');
    logger.info('hidden');
    logger.warn({ attempt: 2 }, 'retrying');
    expect(out.text()).toMatch(/^\d\d:\d\d:\d\d warn {2}retrying attempt=2\n$/);
  });
});
