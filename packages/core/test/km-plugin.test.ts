import { describe, expect, it } from 'vitest';
import { checkKmPlugin, pluginFactories, type KmPlugin } from '../src/connector.js';

const factory = { type: 'jsonfile', description: 'a file', settings: [], create: async () => ({}) };

describe('checkKmPlugin', () => {
  it('accepts a plugin and lists its factories by kind', () => {
    const plugin = checkKmPlugin({ memoryDbs: [factory], queues: [] }, 'my-plugin') as KmPlugin;
    expect(pluginFactories(plugin).map((f) => [f.kind, f.factory.type])).toEqual([['memoryDbs', 'jsonfile']]);
  });

  it.each([
    ['not an object', 42, /plugin "p": its kmPlugin export must be an object/],
    ['an unknown kind', { memoryDb: [factory] }, /kmPlugin.memoryDb is not a kind of connector/],
    ['a kind that is not a list', { memoryDbs: factory }, /kmPlugin.memoryDbs must be a list of factories/],
    ['a factory without type', { memoryDbs: [{ ...factory, type: undefined }] }, /kmPlugin.memoryDbs\[0\].type must be a name/],
    ['a type with a comma', { memoryDbs: [{ ...factory, type: 'a,b' }] }, /type must be a name/],
    [
      'a factory without create',
      { queues: [{ ...factory, create: undefined }] },
      /kmPlugin.queues\[0\] \(type "jsonfile"\) has no create function/,
    ],
    ['a factory without settings', { memoryDbs: [{ ...factory, settings: undefined }] }, /settings must be a list/],
    [
      'a setting without env',
      { memoryDbs: [{ ...factory, settings: [{ key: 'k', description: 'd' }] }] },
      /setting "k": env must be a list/,
    ],
    [
      'a bad flag',
      { memoryDbs: [{ ...factory, settings: [{ key: 'k', env: [], flag: 'k', description: 'd' }] }] },
      /flag must look like --my-setting/,
    ],
  ])('refuses %s, naming the plugin', (_name, value, message) => {
    expect(() => checkKmPlugin(value, 'p')).toThrow(message);
    expect(() => checkKmPlugin(value, 'p')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('KmError across copies of @km/core (a plugin with its own)', () => {
  it('instanceof and isKmError hold for an error of another copy, by class', async () => {
    const { KmError, IndexNotFoundError, InvalidInputError, isKmError } = await import('../src/index.js');
    // Another copy: the same classes, defined again (as a second module instance defines them).
    // @ts-expect-error: a query makes vitest load a second instance of the module
    const copy = (await import('../src/errors/km-error.js?copy')) as typeof import('../src/errors/km-error.js');
    expect(copy.IndexNotFoundError).not.toBe(IndexNotFoundError);
    const error = new copy.IndexNotFoundError('x');
    expect(error instanceof KmError).toBe(true);
    expect(error instanceof IndexNotFoundError).toBe(true);
    expect(error instanceof InvalidInputError).toBe(false);
    expect(isKmError(error, 'index_not_found')).toBe(true);
    expect(new Error('plain') instanceof KmError).toBe(false);
  });
});

describe('MemoryFilter across copies of @km/core (the pipeline hands its filters to a plugin memory DB)', () => {
  it('a filter of another copy is a MemoryFilter to this one and is used as it is; a wire-form object is not', async () => {
    const { MemoryFilter, MemoryFilters, toMemoryFilters } = await import('../src/index.js');
    // @ts-expect-error: a query makes vitest load a second instance of the module
    const copy = (await import('../src/models/memory-filter.js?copy')) as typeof import('../src/models/memory-filter.js');
    expect(copy.MemoryFilter).not.toBe(MemoryFilter);
    const foreign = copy.MemoryFilters.byDocument('doc-1').byTag('user', 'alice');
    expect(foreign instanceof MemoryFilter).toBe(true);
    // Before the brand, the foreign filter was read as the wire form { conditions: [...] }: invalid_filter.
    expect(toMemoryFilters([foreign])[0]!.conditions).toEqual(foreign.conditions);
    const wire = { user: 'alice' };
    expect(wire instanceof MemoryFilter).toBe(false);
    expect(toMemoryFilters([wire])[0]!.conditions).toEqual(MemoryFilters.byTag('user', 'alice').conditions);
  });
});
