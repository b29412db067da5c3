import { describe, expect, it } from 'vitest';
import { planParts } from '../src/parallel-scan.js';
import { ScanGate } from '../src/scan-gate.js';
import { ScanLanes } from '../src/scan-lanes.js';

/** A promise and its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('planParts', () => {
  it('covers every row once, in runs of at most ceil(total / threads) rounded to 4', () => {
    const counts = [65536, 34464, 0, 3];
    const plan = planParts(counts, 2);
    expect(plan.length).toBe(4);
    for (let s = 0; s < counts.length; s++) {
      let next = 0;
      for (const part of plan[s]!) {
        expect(part.start).toBe(next);
        expect(part.count).toBeGreaterThan(0);
        expect(part.count).toBeLessThanOrEqual(50004);
        expect(part.start % 4).toBe(0);
        next += part.count;
      }
      expect(next).toBe(counts[s]);
    }
    expect(plan[0]!.length).toBe(2);
    expect(plan[1]!.length).toBe(1);
  });
});

describe('ScanGate', () => {
  it('runs a mutation at once when no scan runs', async () => {
    const gate = new ScanGate();
    let ran = false;
    const result = gate.write(() => {
      ran = true;
      return 7;
    });
    expect(ran).toBe(true);
    expect(await result).toBe(7);
  });

  it('lets scans run side by side, holds a mutation until they settle, and later scans until it ran', async () => {
    const gate = new ScanGate();
    const events: string[] = [];
    const a = deferred();
    const b = deferred();
    const scanA = gate.read(async () => {
      events.push('a start');
      await a.promise;
      events.push('a end');
    });
    const scanB = gate.read(async () => {
      events.push('b start');
      await b.promise;
      events.push('b end');
    });
    await tick();
    expect(gate.running).toBe(2);
    const write = gate.write(() => events.push('write'));
    const scanC = gate.read(async () => {
      events.push('c start');
    });
    await tick();
    expect(events).toEqual(['a start', 'b start']);
    a.resolve();
    await tick();
    expect(events).toEqual(['a start', 'b start', 'a end']);
    b.resolve();
    await Promise.all([scanA, scanB, write, scanC]);
    expect(events).toEqual(['a start', 'b start', 'a end', 'b end', 'write', 'c start']);
  });

  it('a failing scan still releases the gate', async () => {
    const gate = new ScanGate();
    const failing = gate.read(async () => {
      await tick();
      throw new Error('boom');
    });
    const write = gate.write(() => 'written');
    await expect(failing).rejects.toThrow('boom');
    expect(await write).toBe('written');
    expect(gate.running).toBe(0);
  });
});

describe('ScanLanes', () => {
  it('hands out distinct lanes, then makes later scans wait for a released one', async () => {
    const lanes = new ScanLanes(1, 2);
    const first = await lanes.acquire();
    const second = await lanes.acquire();
    expect(new Set([first, second])).toEqual(new Set([1, 2]));
    let third: number | undefined;
    const waiting = lanes.acquire().then((lane) => {
      third = lane;
    });
    await tick();
    expect(third).toBeUndefined();
    lanes.release(second);
    await waiting;
    expect(third).toBe(second);
  });
});

describe('ScanGate with an async mutation', () => {
  it('holds scans that arrive while the mutation awaits', async () => {
    const gate = new ScanGate();
    const events: string[] = [];
    const io = deferred();
    const write = gate.write(async () => {
      events.push('write start');
      await io.promise;
      events.push('write end');
    });
    const scan = gate.read(async () => {
      events.push('scan');
    });
    await tick();
    expect(events).toEqual(['write start']);
    io.resolve();
    await Promise.all([write, scan]);
    expect(events).toEqual(['write start', 'write end', 'scan']);
  });
});
