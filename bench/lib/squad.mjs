// SQuAD-style JSON (v1.1 and v2.0) read into passages and questions for the retrieval and answer
// evaluation (rag-eval.bench.mjs). The shape read: `data[].title`, `data[].paragraphs[].context`,
// `data[].paragraphs[].qas[].{id, question, answers[].text, is_impossible}`; anything else is ignored.
import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '@km/core';

/**
 * A document id for the paragraph: its position in the file and its article title, reduced to the
 * characters km accepts in document ids (letters, digits, `.`, `_`, `-`).
 */
export function passageId(title, position) {
  const slug = String(title)
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 60);
  return `p${String(position).padStart(4, '0')}${slug ? `-${slug}` : ''}`;
}

const fail = (message) => {
  throw new InvalidInputError('invalid_argument', `SQuAD file: ${message}`);
};

/**
 * Reads a parsed SQuAD file: its passages (`{ id, title, context }`) and its questions
 * (`{ id, text, passageId, answers: string[], impossible }`). A question is impossible when the
 * file says `is_impossible: true` (v2.0); v1.1 questions never are. Gold answers are the distinct
 * non-empty `answers[].text` (plus `plausible_answers` never: those are wrong answers by design).
 * A malformed file is an `invalid_argument` naming the first problem.
 *
 * ```js
 * const { passages, questions } = parseSquad(JSON.parse(await readFile('dev-v2.0.json', 'utf8')));
 * ```
 */
export function parseSquad(json) {
  if (json === null || typeof json !== 'object' || !Array.isArray(json.data)) fail('"data" must be an array of articles');
  const passages = [];
  const questions = [];
  json.data.forEach((article, a) => {
    if (article === null || typeof article !== 'object' || !Array.isArray(article.paragraphs)) {
      fail(`data[${a}].paragraphs must be an array`);
    }
    const title = typeof article.title === 'string' ? article.title : '';
    article.paragraphs.forEach((paragraph, p) => {
      if (typeof paragraph?.context !== 'string' || paragraph.context.trim() === '') {
        fail(`data[${a}].paragraphs[${p}].context must be a non-empty string`);
      }
      const id = passageId(title, passages.length + 1);
      passages.push({ id, title, context: paragraph.context });
      for (const [q, qa] of (Array.isArray(paragraph.qas) ? paragraph.qas : []).entries()) {
        if (typeof qa?.question !== 'string' || qa.question.trim() === '') {
          fail(`data[${a}].paragraphs[${p}].qas[${q}].question must be a non-empty string`);
        }
        const answers = [
          ...new Set((Array.isArray(qa.answers) ? qa.answers : []).map((x) => x?.text).filter((t) => typeof t === 'string' && t.trim())),
        ];
        questions.push({
          id: typeof qa.id === 'string' ? qa.id : `${id}-q${q}`,
          text: qa.question.trim(),
          passageId: id,
          answers,
          impossible: qa.is_impossible === true,
        });
      }
    });
  });
  return { version: typeof json.version === 'string' ? json.version : 'unknown', passages, questions };
}

/** Reads and parses a SQuAD-style file; see {@link parseSquad}. */
export async function loadSquad(path) {
  let json;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') throw error;
    throw new InvalidInputError('invalid_argument', `SQuAD file ${path}: not JSON (${error.message})`);
  }
  return parseSquad(json);
}
