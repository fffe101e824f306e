import { pino, type Logger } from 'pino';
import type { LogLevel } from './config/types.js';

export type { Logger };

/**
 * All logs go to stderr: in stdio mode stdout carries the MCP protocol, and one stray byte there
 * corrupts the client's stream.
 */
export function createLogger(level: LogLevel = 'info'): Logger {
  return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
}

/** A logger for tests and library use that prints nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });
