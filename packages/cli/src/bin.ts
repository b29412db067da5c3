#!/usr/bin/env node
import { runCli } from './cli.js';
import { reportError } from './errors.js';

runCli(process.argv).catch((error: unknown) => {
  process.exitCode = reportError(error);
});
