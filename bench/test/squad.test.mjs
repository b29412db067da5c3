// The SQuAD-style loader of the evaluation bench (node --test; fixtures built here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSquad, passageId } from '../lib/squad.mjs';

const v2 = {
  version: 'v2.0',
  data: [
    {
      title: 'Sky_(United_Kingdom)',
      paragraphs: [
        {
          context: 'Sky launched in 1989.',
          qas: [
            {
              id: 'a1',
              question: ' When did Sky launch? ',
              answers: [{ text: '1989' }, { text: '1989' }, { text: 'in 1989' }],
              is_impossible: false,
            },
            { id: 'a2', question: 'When did Sky close?', answers: [], plausible_answers: [{ text: '1989' }], is_impossible: true },
          ],
        },
        { context: 'A second paragraph.', qas: [] },
      ],
    },
    { title: 'Oxygen', paragraphs: [{ context: 'Oxygen is element 8.', qas: [{ id: 'b1', question: 'What number?', answers: [] }] }] },
  ],
};

test('passages get ids that km accepts, unique by position', () => {
  const { passages } = parseSquad(v2);
  assert.deepEqual(
    passages.map((p) => p.id),
    ['p0001-Sky_United_Kingdom', 'p0002-Sky_United_Kingdom', 'p0003-Oxygen'],
  );
  for (const p of passages) assert.match(p.id, /^[A-Za-z0-9._-]+$/);
  assert.equal(passages[0].title, 'Sky_(United_Kingdom)');
  assert.equal(passages[0].context, 'Sky launched in 1989.');
  assert.equal(passageId('..', 7), 'p0007');
});

test('v2.0 questions carry their gold passage, distinct answers and the impossible flag', () => {
  const { version, questions } = parseSquad(v2);
  assert.equal(version, 'v2.0');
  assert.deepEqual(questions[0], {
    id: 'a1',
    text: 'When did Sky launch?',
    passageId: 'p0001-Sky_United_Kingdom',
    answers: ['1989', 'in 1989'],
    impossible: false,
  });
  assert.deepEqual(questions[1].answers, [], 'plausible answers are not gold');
  assert.equal(questions[1].impossible, true);
  assert.equal(questions[2].passageId, 'p0003-Oxygen');
});

test('v1.1 files (no is_impossible) and withheld answers load', () => {
  const { version, questions } = parseSquad({
    version: '1.1',
    data: [
      {
        title: 'T',
        paragraphs: [{ context: 'c', qas: [{ id: 'x', question: 'q?', answers: [{ text: 'a', answer_start: 0 }] }, { question: 'r?' }] }],
      },
    ],
  });
  assert.equal(version, '1.1');
  assert.deepEqual(
    questions.map((q) => [q.id, q.answers, q.impossible]),
    [
      ['x', ['a'], false],
      ['p0001-T-q1', [], false],
    ],
  );
});

test('a malformed file is an invalid_argument naming the problem', () => {
  for (const [json, words] of [
    [null, '"data"'],
    [{ data: {} }, '"data"'],
    [{ data: [{ title: 't' }] }, 'data[0].paragraphs'],
    [{ data: [{ paragraphs: [{ context: ' ' }] }] }, 'data[0].paragraphs[0].context'],
    [{ data: [{ paragraphs: [{ context: 'c', qas: [{ question: 3 }] }] }] }, 'qas[0].question'],
  ]) {
    assert.throws(
      () => parseSquad(json),
      (e) => e.code === 'invalid_argument' && e.message.includes(words),
    );
  }
});
