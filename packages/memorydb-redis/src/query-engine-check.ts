import { KmError } from '@km/core';
import type { RedisClient } from './redis-config.js';
import { isUnknownCommand } from './redis-errors.js';
import { replyFields, replyList, replyNumber } from './reply-fields.js';

/** RediSearch 2.4.0, the first with vector fields (module versions are `major * 10000 + minor * 100 + patch`). */
export const MIN_SEARCH_VERSION = 20400;
/** Names the query engine registers as a module (`searchlight` is Redis Enterprise's light edition). */
const SEARCH_MODULES = new Set(['search', 'searchlight']);
const NEEDS = 'km needs Redis 8, or Redis Stack / RediSearch 2.4+ (the Redis Query Engine with vector search)';

/** `20405` → `2.4.5`. */
export function moduleVersionText(version: number): string {
  return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}

/** The search module in a MODULE LIST reply, with its version; undefined when there is none. */
export function searchModuleOf(reply: unknown): { name: string; version: number | undefined } | undefined {
  for (const entry of replyList(reply)) {
    const fields = replyFields(entry);
    const name = String(fields.get('name') ?? '');
    if (SEARCH_MODULES.has(name.toLowerCase())) return { name, version: replyNumber(fields.get('ver')) };
  }
  return undefined;
}

/**
 * Refuses a server without the query engine, or with a RediSearch older than 2.4 (no vector
 * fields), with `not_configured` naming what is needed and what the server has. Reads MODULE
 * LIST; a server that refuses MODULE LIST (ACLs, proxies) is accepted when it knows FT._LIST.
 */
export async function checkQueryEngine(client: RedisClient): Promise<void> {
  let modules: unknown;
  try {
    modules = await client.sendCommand(['MODULE', 'LIST']);
  } catch (error) {
    if (!(error instanceof Error) || !/^(ERR|NOPERM)/.test(error.message)) throw error;
    try {
      await client.sendCommand(['FT._LIST']);
      return;
    } catch (ftError) {
      if (!isUnknownCommand(ftError)) throw ftError;
      throw refusal(`${await serverVersion(client)}, which knows no FT.* commands`, ftError);
    }
  }
  const search = searchModuleOf(modules);
  if (!search) throw refusal(`${await serverVersion(client)} without the search module (MODULE LIST shows ${moduleNames(modules)})`);
  if (search.version !== undefined && search.version < MIN_SEARCH_VERSION) {
    throw refusal(`RediSearch ${moduleVersionText(search.version)}, which has no vector fields`);
  }
}

function refusal(has: string, cause?: unknown): KmError {
  return new KmError('not_configured', `${NEEDS}; this server has ${has}`, { connector: 'redis', cause });
}

function moduleNames(reply: unknown): string {
  const names = replyList(reply).map((entry) => String(replyFields(entry).get('name') ?? '?'));
  return names.length > 0 ? names.join(', ') : 'none';
}

async function serverVersion(client: RedisClient): Promise<string> {
  try {
    const info = String(await client.sendCommand(['INFO', 'server']));
    const version = /^redis_version:(\S+)/m.exec(info)?.[1];
    return version ? `Redis ${version}` : 'a Redis server';
  } catch {
    return 'a Redis server';
  }
}
