import pino, { type Logger as PinoLogger } from 'pino';
import type { Logger } from '@km/core';
import type { ServiceConfig } from './config.js';

/** One JSON object per line on stdout: `level`, `time`, `msg`, `requestId` and the event's fields. */
export function createServiceLogger(level: ServiceConfig['logLevel'], destination?: pino.DestinationStream): PinoLogger {
  return pino({ level, base: { service: 'km' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
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
