import { InvalidInputError } from '@km/core';
import { unstorableTextReason } from '@km/core/connector';

/** Roles a chat message may have. */
export const CHAT_ROLES = Object.freeze(['system', 'user', 'assistant', 'tool'] as const);

/** The role of a chat message. */
export type ChatRole = (typeof CHAT_ROLES)[number];

/** Longest session id, in UTF-8 bytes. */
export const MAX_SESSION_ID_BYTES = 256;

/** A message to add to a session: what was said, by whom. */
export interface ChatMessageInput {
  readonly role: ChatRole;
  /** The text of the message; not empty. */
  readonly content: string;
  /** The participant's or tool's name, when the role has several (e.g. the tool that answered). */
  readonly name?: string;
}

/** A stored chat message. */
export interface ChatMessage {
  readonly messageId: string;
  readonly sessionId: string;
  readonly role: ChatRole;
  readonly content: string;
  readonly name?: string;
  /** When the message was added. */
  readonly createdAt: Date;
  /** Its place in the session: increases with every message added to the session in this process. */
  readonly sequence: number;
}

/**
 * Checks a session id: a non-empty string of at most 256 UTF-8 bytes that every store can hold
 * (no NUL, no lone surrogate). Throws `invalid_argument`.
 *
 * ```ts
 * checkSessionId('user-42/chat-7'); // 'user-42/chat-7'
 * ```
 */
export function checkSessionId(sessionId: unknown): string {
  if (typeof sessionId !== 'string') throw invalid(`sessionId must be a string, got ${describe(sessionId)}`);
  if (sessionId.length === 0) throw invalid('sessionId is empty');
  const bytes = Buffer.byteLength(sessionId, 'utf8');
  if (bytes > MAX_SESSION_ID_BYTES) throw invalid(`sessionId has ${bytes} UTF-8 bytes; at most ${MAX_SESSION_ID_BYTES}`);
  const reason = unstorableTextReason(sessionId);
  if (reason) throw invalid(`sessionId ${reason}`);
  return sessionId;
}

/**
 * Checks a chat role: one of `system`, `user`, `assistant`, `tool`. Throws `invalid_argument`.
 *
 * ```ts
 * checkChatRole('assistant'); // 'assistant'
 * ```
 */
export function checkChatRole(role: unknown, where = 'role'): ChatRole {
  if (typeof role !== 'string' || !(CHAT_ROLES as readonly string[]).includes(role)) {
    throw invalid(`${where} must be one of ${CHAT_ROLES.join(', ')}, got ${describe(role)}`);
  }
  return role as ChatRole;
}

/**
 * Checks a message to add: a known role, text content that is not blank (`empty_content`
 * otherwise) and an optional non-empty name; no other properties. Throws `InvalidInputError`
 * naming the message (`where`) and the problem.
 *
 * ```ts
 * checkChatMessageInput({ role: 'user', content: 'Book a room by the sea' });
 * ```
 */
export function checkChatMessageInput(message: unknown, where = 'message'): ChatMessageInput {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw invalid(`${where} must be an object`);
  const { role, content, name, ...rest } = message as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(`${where} has unknown properties: ${unknown.join(', ')} (a message has role, content, name)`);
  const checkedRole = checkChatRole(role, `${where}: role`);
  if (typeof content !== 'string') throw invalid(`${where}: content must be a string, got ${describe(content)}`);
  if (content.trim().length === 0) throw new InvalidInputError('empty_content', `${where}: content is empty`);
  const contentProblem = unstorableTextReason(content);
  if (contentProblem) throw invalid(`${where}: content ${contentProblem}`);
  if (name === undefined || name === null) return { role: checkedRole, content };
  if (typeof name !== 'string' || name.length === 0) throw invalid(`${where}: name must be a non-empty string, got ${describe(name)}`);
  const nameProblem = unstorableTextReason(name);
  if (nameProblem) throw invalid(`${where}: name ${nameProblem}`);
  return { role: checkedRole, content, name };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
