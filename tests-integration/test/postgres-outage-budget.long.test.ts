import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { eventually } from '@km/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { KM_BIN, kmEnv } from '../src/km-process.js';
import { DOCUMENTS, OutageScenario, type Status } from './helpers/outage-scenario.js';

// The same 60 s PostgreSQL outage with a retry budget shorter than it (15 s): every document
// the outage caught ends failed with its reason once the database is back (none stays "in
// progress"), and `km redrive` then completes them, one record set each.
describe(`a 60 s PostgreSQL outage longer than the retry budget (${OutageScenario.databaseName()})`, () => {
  const scenario = new OutageScenario();
  afterAll(() => scenario.stop());

  it('fails every affected document with its reason; km redrive completes them', { timeout: OutageScenario.timeout(300_000) }, async () => {
    await scenario.start({ retryBudgetMs: 15_000 });
    for (const [id, text] of DOCUMENTS) expect(await scenario.upload(id!, text!)).toBe(202);
    await scenario.stopDatabase();
    await sleep(60_000);
    expect(scenario.alive()).toBe(true);
    await scenario.startDatabase();

    // Once the state can be written again, each document is either done or failed: none pending.
    let statuses: Array<Status | undefined> = [];
    await eventually(
      async () => {
        statuses = await Promise.all(DOCUMENTS.map(([id]) => scenario.status(id!)));
        expect(statuses.filter((s) => !s?.completed && !s?.failed)).toEqual([]);
      },
      120_000,
      1000,
    );
    const failed = DOCUMENTS.filter((_, i) => statuses[i]?.failed).map(([id]) => id!);
    expect(failed.length).toBeGreaterThan(0);
    for (const id of failed) {
      const status = statuses[DOCUMENTS.findIndex(([d]) => d === id)]!;
      expect(status.error).toMatch(/^step "\w+" kept failing for .* \(retry budget 15 s, \d+ attempts\): /);
    }

    const { stdout } = await promisify(execFile)(process.execPath, [KM_BIN, 'redrive', '--url', scenario.url], { env: kmEnv() });
    expect(stdout).toContain(`${failed.length} of ${DOCUMENTS.length} document(s) queued again`);
    await scenario.expectAllCompletedOnce(120_000);
    // Idempotent: nothing left to redrive.
    const again = await promisify(execFile)(process.execPath, [KM_BIN, 'redrive', '--url', scenario.url, '--json'], { env: kmEnv() });
    expect(JSON.parse(again.stdout)).toMatchObject({ redriven: [] });
  });
});
