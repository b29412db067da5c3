import { randomUUID } from 'node:crypto';
import { InvalidInputError, type RecordDefinition, type VectorStoreFilter } from '@km/core';
import type { IVectorStoreCollection } from '../vector-store-types.js';
import type { ChatMessageRecord } from './chat-history-definition.js';
import {
  type ChatMessage,
  type ChatMessageInput,
  type ChatRole,
  checkChatMessageInput,
  checkChatRole,
  checkSessionId,
} from './chat-message.js';
import { SessionLock } from './session-lock.js';

/** Default number of messages `recent` returns. */
export const DEFAULT_RECENT_LIMIT = 20;
/** Most messages `recent` returns. */
export const MAX_RECENT_LIMIT = 10000;
/** Default number of messages `recall` returns. */
export const DEFAULT_RECALL_TOP = 5;
/** Messages deleted per round trip by `clear`. */
const CLEAR_PAGE = 1000;

/** Options of {@link ChatHistory.recent}. */
export interface RecentMessagesOptions {
  /** How many of the last messages. @default 20 (at most 10000) */
  limit?: number;
  signal?: AbortSignal;
}

/** Options of {@link ChatHistory.recall}. */
export interface ChatRecallOptions {
  /** Only this session's messages. @default every session */
  sessionId?: string;
  /** Most messages. @default 5 */
  top?: number;
  /** Drop messages scoring worse than this, in the convention of the definition's distance (see `DistanceFunction`). */
  minScore?: number;
  /** Only messages of these roles. @default every role */
  roles?: readonly ChatRole[];
  signal?: AbortSignal;
}

/** A message found by {@link ChatHistory.recall}, with its similarity score. */
export interface ChatRecallResult {
  readonly message: ChatMessage;
  readonly score: number;
}

/** Serialises the adds and clears of a session across every `ChatHistory` of this process. */
const sessions = new SessionLock();

/**
 * Chat sessions kept in a typed collection of {@link chatHistoryDefinition} records, on any
 * vector store whose driver can read by filter (`query`): add messages, read the last ones in
 * order, recall the ones most similar to a text, clear a session. Each message gets a
 * `messageId`, a `createdAt` and a per-session `sequence`; adds and clears of one session are
 * serialised in this process, so sequences increase even when adds run concurrently (two
 * processes adding to one session at once may give two messages the same sequence).
 *
 * ```ts
 * const store = new SimpleVectorStore({ embeddingGenerator });
 * const messages = store.getCollection('chat', chatHistoryDefinition({ dimensions: 384 }));
 * await messages.ensureExists();
 * const history = new ChatHistory(messages);
 * await history.add('session-1', [
 *   { role: 'user', content: 'Find me a quiet hotel by the sea' },
 *   { role: 'assistant', content: 'Sea View has quiet rooms facing the bay.' },
 * ]);
 * const last = await history.recent('session-1', { limit: 10 }); // oldest first
 * const [hit] = await history.recall('which hotel faces the bay?', { sessionId: 'session-1', top: 1 });
 * ```
 */
export class ChatHistory {
  constructor(readonly collection: IVectorStoreCollection<ChatMessageRecord>) {
    checkChatDefinition(collection.definition);
  }

  /**
   * Adds messages to the end of a session and returns them as stored. Checks every message
   * first (role, non-empty content), so none is written when one is refused.
   */
  add(sessionId: string, message: ChatMessageInput, options?: { signal?: AbortSignal }): Promise<ChatMessage>;
  add(sessionId: string, messages: readonly ChatMessageInput[], options?: { signal?: AbortSignal }): Promise<ChatMessage[]>;
  add(
    sessionId: string,
    messages: ChatMessageInput | readonly ChatMessageInput[],
    options?: { signal?: AbortSignal },
  ): Promise<ChatMessage | ChatMessage[]>;
  async add(
    sessionId: string,
    input: ChatMessageInput | readonly ChatMessageInput[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ChatMessage | ChatMessage[]> {
    const session = checkSessionId(sessionId);
    const many = Array.isArray(input);
    const messages = (many ? input : [input]).map((m, i) => checkChatMessageInput(m, many ? `message ${i}` : 'message'));
    if (messages.length === 0) return [];
    const stored = await sessions.run(this.lockKey(session), async () => {
      const [last] = await this.collection.query({
        filter: { sessionId: session },
        orderBy: [{ property: 'sequence', descending: true }],
        top: 1,
        signal: options.signal,
      });
      const now = new Date();
      // Never earlier than the last message, so createdAt orders a session as sequence does.
      const createdAt = last && last.createdAt.getTime() > now.getTime() ? new Date(last.createdAt.getTime()) : now;
      const records: ChatMessageRecord[] = messages.map((m, i) => ({
        messageId: randomUUID(),
        sessionId: session,
        role: m.role,
        content: m.content,
        name: m.name ?? null,
        createdAt: new Date(createdAt.getTime()),
        sequence: (last?.sequence ?? 0) + 1 + i,
      }));
      await this.collection.upsert(records, { signal: options.signal });
      return records.map(toChatMessage);
    });
    return many ? stored : stored[0]!;
  }

  /** The last `limit` messages of a session, oldest first. */
  async recent(sessionId: string, options: RecentMessagesOptions = {}): Promise<ChatMessage[]> {
    const session = checkSessionId(sessionId);
    const limit = options.limit ?? DEFAULT_RECENT_LIMIT;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT_LIMIT) {
      throw invalid(`limit must be an integer from 1 to ${MAX_RECENT_LIMIT}, got ${String(limit)}`);
    }
    const records = await this.collection.query({
      filter: { sessionId: session },
      orderBy: [{ property: 'sequence', descending: true }],
      top: limit,
      signal: options.signal,
    });
    return records.reverse().map(toChatMessage);
  }

  /**
   * The messages most similar to `text`, best first, from one session or all, of some roles
   * or all. Embeds `text` with the collection's embedding generator.
   */
  async recall(text: string, options: ChatRecallOptions = {}): Promise<ChatRecallResult[]> {
    if (typeof text !== 'string' || text.trim().length === 0) throw new InvalidInputError('empty_content', 'the text to recall is empty');
    const filter: VectorStoreFilter<ChatMessageRecord> = {};
    if (options.sessionId !== undefined) filter.sessionId = checkSessionId(options.sessionId);
    if (options.roles !== undefined) {
      if (!Array.isArray(options.roles)) throw invalid('roles must be an array of roles');
      filter.role = { in: options.roles.map((role, i) => checkChatRole(role, `roles[${i}]`)) };
    }
    const hits = await this.collection.search(text, {
      top: options.top ?? DEFAULT_RECALL_TOP,
      filter,
      signal: options.signal,
      ...(options.minScore === undefined ? {} : { minScore: options.minScore }),
    });
    return hits.map(({ record, score }) => ({ message: toChatMessage(record), score }));
  }

  /** Deletes every message of a session, a page at a time; returns how many were deleted. */
  async clear(sessionId: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const session = checkSessionId(sessionId);
    return sessions.run(this.lockKey(session), async () => {
      const deleted = new Set<string>();
      for (;;) {
        const page = await this.collection.query({ filter: { sessionId: session }, top: CLEAR_PAGE, signal: options.signal });
        // A store that shows deletes late may list deleted messages again: stop when nothing is new.
        const keys = page.map((record) => record.messageId).filter((key) => !deleted.has(key));
        if (keys.length === 0) return deleted.size;
        await this.collection.delete(keys, { signal: options.signal });
        for (const key of keys) deleted.add(key);
        if (page.length < CLEAR_PAGE) return deleted.size;
      }
    });
  }

  private lockKey(sessionId: string): string {
    return `${this.collection.name}\u0000${sessionId}`;
  }
}

function toChatMessage(record: ChatMessageRecord): ChatMessage {
  const message: ChatMessage = {
    messageId: record.messageId,
    sessionId: record.sessionId,
    role: record.role as ChatRole,
    content: record.content,
    createdAt: record.createdAt,
    sequence: record.sequence,
  };
  return typeof record.name === 'string' ? { ...message, name: record.name } : message;
}

/** Refuses a collection whose definition lacks what a chat history reads and filters by. */
function checkChatDefinition(definition: RecordDefinition<ChatMessageRecord>): void {
  const problem = (what: string) =>
    invalid(`a ChatHistory needs a collection of chatHistoryDefinition(...) records; its definition ${what}`);
  if (definition.key.name !== 'messageId' || definition.key.type !== 'string') throw problem('has no string key messageId');
  const expected: Record<string, { type: string; filterable: boolean }> = {
    sessionId: { type: 'string', filterable: true },
    role: { type: 'string', filterable: true },
    content: { type: 'string', filterable: false },
    name: { type: 'string', filterable: false },
    createdAt: { type: 'date', filterable: true },
    sequence: { type: 'integer', filterable: true },
  };
  for (const [name, { type, filterable }] of Object.entries(expected)) {
    const property = definition.data.find((p) => p.name === name);
    if (!property || property.type !== type || (filterable && !property.filterable)) {
      throw problem(`has no ${filterable ? 'filterable ' : ''}${type} property ${name}`);
    }
  }
  if (!definition.vectors.some((v) => v.embed === 'content')) throw problem('has no vector embedded from content');
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
