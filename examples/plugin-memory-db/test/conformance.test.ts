import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryDb } from '@km/conformance';
import { JsonFileMemoryDb } from '../src/index.js';

describeMemoryDb('jsonfile', {
  create: () => new JsonFileMemoryDb({ directory: mkdtempSync(join(tmpdir(), 'km-jsonfile-')) }),
});
