#!/usr/bin/env node
import { runKm } from './cli.js';

process.exitCode = await runKm(process.argv);
