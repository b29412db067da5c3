// LoCoMo (Maharana et al., ACL 2024; `locomo10.json`): long conversations with questions about
// them, read into the evaluation's shape: one index per conversation, one document per turn,
// questions with the ids of their evidence turns. Category 5 questions are unanswerable by design
// (adversarial: they ask about something the conversation never says).
import { readFile } from 'node:fs/promises';

/** A turn's document id: `D3:7` (session 3, turn 7) becomes `D3-7` (km document ids allow no `:`). */
export const turnId = (diaId) => String(diaId).replace(':', '-');

/**
 * A turn as the text a memory holds: `[8 May, 2023] Caroline: …`, with a shared photo's caption
 * (`[shares a photo of …]`); the session's date is part of it, as a conversation log keeps it.
 */
export function turnText(turn, date) {
  const photo = turn.blip_caption ? ` [shares ${turn.blip_caption}]` : '';
  return `[${date}] ${turn.speaker}: ${turn.text}${photo}`;
}

/**
 * The conversations of a parsed LoCoMo file: `{ name, documents: [{ id, text }], questions: [{ text,
 * gold, answers, kind }] }` each, `kind` being `locomo1`..`locomo4` (answerable; `answers` holds
 * the gold answer) or `adversarial` (category 5, `answers` empty). Evidence ids that name no turn
 * (a few in the file are malformed) are dropped.
 */
export function parseLocomo(json) {
  if (!Array.isArray(json)) throw new Error('LoCoMo file: expected an array of conversations');
  return json.map((sample, c) => {
    const conversation = sample?.conversation;
    if (!conversation || typeof conversation !== 'object') throw new Error(`LoCoMo file: conversation ${c} has no "conversation"`);
    const documents = [];
    for (let s = 1; Array.isArray(conversation[`session_${s}`]); s++) {
      const date = String(conversation[`session_${s}_date_time`] ?? '').replace(/^.* on /, '');
      for (const turn of conversation[`session_${s}`]) documents.push({ id: turnId(turn.dia_id), text: turnText(turn, date) });
    }
    const ids = new Set(documents.map((d) => d.id));
    const questions = (Array.isArray(sample.qa) ? sample.qa : []).map((qa) => ({
      text: String(qa.question).trim(),
      gold: [
        ...new Set(
          (qa.evidence ?? [])
            .flatMap((e) => String(e).split(/[;,\s]+/))
            .map(turnId)
            .filter((id) => ids.has(id)),
        ),
      ],
      answers: qa.category === 5 ? [] : [String(qa.answer)],
      kind: qa.category === 5 ? 'adversarial' : `locomo${qa.category}`,
    }));
    return { name: `locomo-${String(sample.sample_id ?? c).replace(/[^A-Za-z0-9-]/g, '-')}`, documents, questions };
  });
}

/** Reads and parses a LoCoMo file; see {@link parseLocomo}. */
export async function loadLocomo(path) {
  return parseLocomo(JSON.parse(await readFile(path, 'utf8')));
}
