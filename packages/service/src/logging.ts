import pino, { type Logger as PinoLogger } from 'pino';
import { InvalidInputError, type Logger } from '@km/core';
import type { ServiceConfig } from './config.js';

/** `json`: one JSON object per line (for log collectors); `pretty`: short lines for people at a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * The log format: `KM_LOG_FORMAT` (`json` or `pretty`) when set, else `pretty` when the logs go
 * to a terminal and `json` otherwise.
 */
export function chooseLogFormat(isTerminal: boolean, env: NodeJS.ProcessEnv = process.env): LogFormat {
  const chosen = env.KM_LOG_FORMAT?.trim().toLowerCase();
  if (chosen === 'json' || chosen === 'pretty') return chosen;
  if (chosen)
    throw new InvalidInputError('invalid_argument', `KM_LOG_FORMAT must be json or pretty, got ${JSON.stringify(env.KM_LOG_FORMAT)}`);
  return isTerminal ? 'pretty' : 'json';
}

/**
 * The service's logger, on `destination` (default stdout). JSON: one object per line with
 * `level`, `time`, `msg`, `requestId` and the event's fields. Pretty: `HH:MM:SS level message
 * key=value …`. The format is `format` when given, else {@link chooseLogFormat}'s.
 */
export function createServiceLogger(
  level: ServiceConfig['logLevel'],
  destination?: pino.DestinationStream,
  format?: LogFormat,
): PinoLogger {
  const out = destination ?? process.stdout;
  const terminal = (out as { isTTY?: boolean }).isTTY === true;
  const chosen = format ?? chooseLogFormat(terminal);
  const options = { level, base: { service: 'km' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (chosen === 'json') return pino(options, destination);
  const colors = terminal && !process.env.NO_COLOR;
  return pino(options, { write: (line: string) => void out.write(`${formatLogLine(line, { colors })}\n`) });
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const LEVEL_COLORS: Record<string, string> = { trace: '90', debug: '90', info: '36', warn: '33', error: '31', fatal: '35' };
/** Fields every line has or that the line shows elsewhere. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

/**
 * One JSON log line of pino as `HH:MM:SS level message key=value …` (local time; nested
 * fields as `req.method=GET`; an error's stack on the indented lines after). A line that is
 * not JSON is returned as it is.
 */
export function formatLogLine(jsonLine: string, options: { colors?: boolean } = {}): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.trimEnd();
  }
  if (!record || typeof record !== 'object' || Array.isArray(record)) return jsonLine.trimEnd();
  const paint = (code: string | undefined, text: string) => (options.colors && code ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = typeof record.level === 'number' ? (LEVEL_NAMES[record.level] ?? String(record.level)) : String(record.level ?? '');
  const parts = [paint('2', clockOf(record.time)), paint(LEVEL_COLORS[level], level.padEnd(5))];
  if (typeof record.msg === 'string' && record.msg !== '') parts.push(record.msg);
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN_FIELDS.has(key) || value === undefined) continue;
    if (isErrorLike(value)) {
      parts.push(`${key}=${quoted(value.message)}`);
      if (typeof value.stack === 'string') stacks.push(...value.stack.split('\n').slice(1));
      continue;
    }
    for (const [path, leaf] of flatten(key, value)) parts.push(`${path}=${leaf}`);
  }
  const stack = stacks.map((l) => `    ${l.trim()}`).join('\n');
  return stack ? `${parts.join(' ')}\n${paint('2', stack)}` : parts.join(' ');
}

/** The local `HH:MM:SS` of an ISO time (or epoch ms); `--:--:--` when there is none. */
function clockOf(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : undefined;
  if (!date || Number.isNaN(date.getTime())) return '--:--:--';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

function isErrorLike(value: unknown): value is { message: string; stack?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    ('stack' in value || 'type' in value)
  );
}

/** Objects as dotted paths to their leaves; arrays and leaves as values. */
function flatten(path: string, value: unknown): Array<[string, string]> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return [[path, '{}']];
    return entries.flatMap(([k, v]) => flatten(`${path}.${k}`, v));
  }
  return [[path, typeof value === 'string' ? quoted(value) : JSON.stringify(value)]];
}

/** A string as is when it reads unambiguously, else JSON-quoted. */
function quoted(text: string): string {
  return text !== '' && /^[^\s"=\\]+$/.test(text) ? text : JSON.stringify(text);
}

/** Lets core and the connectors log through pino. */
export function toKmLogger(logger: PinoLogger): Logger {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
