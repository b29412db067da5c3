#!/usr/bin/env node
import { reportError, runCli } from './cli.js';

runCli(process.argv).catch((error: unknown) => {
  process.exitCode = reportError(error);
});
