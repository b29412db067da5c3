/** Where km writes what it does. Compatible with `console` and most structured loggers. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LEVELS)[number];

/**
 * A logger writing one line per event to stderr, at or above `level`.
 * @param level @default process.env.KM_LOG_LEVEL ?? 'warn'
 */
export function createConsoleLogger(level: LogLevel = (process.env.KM_LOG_LEVEL as LogLevel | undefined) ?? 'warn'): Logger {
  const min = Math.max(0, LEVELS.indexOf(level));
  const write = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(at) < min) return;
    const suffix = fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`${new Date().toISOString()} ${at.toUpperCase()} [km] ${message}${suffix}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** A logger that discards everything. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
