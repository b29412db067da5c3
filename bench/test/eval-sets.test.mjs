// The evaluation sets' loaders (node --test, fixtures built here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLocomo, turnText } from '../lib/locomo.mjs';
import { parseQaSet, splitOffTopic } from '../lib/qa-set.mjs';

const conversation = {
  sample_id: 'conv-1',
  conversation: {
    speaker_a: 'Ann',
    speaker_b: 'Bo',
    session_1_date_time: '1:56 pm on 8 May, 2023',
    session_1: [
      { speaker: 'Ann', dia_id: 'D1:1', text: 'I went to the lake yesterday.' },
      { speaker: 'Bo', dia_id: 'D1:2', text: 'Look at this!', blip_caption: 'a photo of a red kite' },
    ],
    session_2_date_time: '9:00 am on 1 June, 2023',
    session_2: [{ speaker: 'Ann', dia_id: 'D2:1', text: 'I adopted a cat.' }],
  },
  qa: [
    { question: 'Where did Ann go?', answer: 'the lake', evidence: ['D1:1'], category: 4 },
    { question: 'What did Bo adopt?', adversarial_answer: 'a cat', evidence: ['D2:1', 'D9:9'], category: 5 },
    { question: 'When?', answer: 2023, evidence: ['D1:1; D2:1'], category: 2 },
  ],
};

test('LoCoMo: one document per turn with its session date and photo, questions with their evidence turns', () => {
  const [c] = parseLocomo([conversation]);
  assert.equal(c.name, 'locomo-conv-1');
  assert.deepEqual(
    c.documents.map((d) => d.id),
    ['D1-1', 'D1-2', 'D2-1'],
  );
  assert.equal(c.documents[1].text, '[8 May, 2023] Bo: Look at this! [shares a photo of a red kite]');
  assert.equal(c.documents[2].text, turnText({ speaker: 'Ann', text: 'I adopted a cat.' }, '1 June, 2023'));
  assert.deepEqual(c.questions[0], { text: 'Where did Ann go?', gold: ['D1-1'], answers: ['the lake'], kind: 'locomo4' });
  // Category 5 is unanswerable: no answers; an evidence id naming no turn is dropped.
  assert.deepEqual(c.questions[1], { text: 'What did Bo adopt?', gold: ['D2-1'], answers: [], kind: 'adversarial' });
  // Several ids in one string; a number answer becomes text.
  assert.deepEqual(c.questions[2].gold, ['D1-1', 'D2-1']);
  assert.deepEqual(c.questions[2].answers, ['2023']);
  assert.throws(() => parseLocomo({}), /array/);
});

test('QA sets: passages open with their title; answerable questions point at their passage', () => {
  const set = parseQaSet(
    {
      passages: [{ id: 'p1', title: 'The ferry', text: 'Her hull is teal.' }],
      answerable: [{ q: 'What colour is the ferry?', answers: ['teal'], passage: 'p1' }],
      unanswerable: ['How fast is it?'],
    },
    'para',
  );
  assert.deepEqual(set.documents, [{ id: 'p1', text: 'The ferry\n\nHer hull is teal.' }]);
  assert.deepEqual(set.questions, [
    { text: 'What colour is the ferry?', gold: ['p1'], answers: ['teal'], kind: 'answerable' },
    { text: 'How fast is it?', gold: [], answers: [], kind: 'unanswerable' },
  ]);
});

test('off-topic questions split in two disjoint halves: one may fit, the other is only measured', () => {
  const { fit, report } = splitOffTopic({ questions: ['a', 'b', 'c', 'd', 'e'] });
  assert.deepEqual(fit, ['a', 'c', 'e']);
  assert.deepEqual(report, ['b', 'd']);
});
