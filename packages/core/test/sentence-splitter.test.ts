import { describe, expect, it } from 'vitest';
import { splitSentences } from '../src/index.js';

describe('splitSentences', () => {
  const cases: Record<string, [string, string[]]> = {
    'plain sentences': ['The sky is blue. The grass is green! Is it? Yes.', ['The sky is blue.', 'The grass is green!', 'Is it?', 'Yes.']],
    'a.m. and p.m. inside a sentence': [
      'The machine is cleaned at 4 p.m. by the team. We open at 9 a.m. on Mondays.',
      ['The machine is cleaned at 4 p.m. by the team.', 'We open at 9 a.m. on Mondays.'],
    ],
    'p.m. ending a sentence before a usual starter': [
      'We close at 5 p.m. The doors lock then.',
      ['We close at 5 p.m.', 'The doors lock then.'],
    ],
    'e.g., i.e., etc., vs.': [
      'Fruit, e.g. apples, is sweet. Cats vs. Dogs is a debate, i.e. an old one. We sell pens, paper, etc. and more.',
      ['Fruit, e.g. apples, is sweet.', 'Cats vs. Dogs is a debate, i.e. an old one.', 'We sell pens, paper, etc. and more.'],
    ],
    'titles and places': [
      'Mr. Smith met Mrs. Jones and Dr. Brown on Main St. Paul was there too. It was late.',
      ['Mr. Smith met Mrs. Jones and Dr. Brown on Main St. Paul was there too.', 'It was late.'],
    ],
    'U.S., U.K., Inc., Ltd.': [
      'Acme Inc. Holdings moved to the U.S. Army base. Widgets Ltd. sells in the U.K. It grows.',
      ['Acme Inc. Holdings moved to the U.S. Army base.', 'Widgets Ltd. sells in the U.K.', 'It grows.'],
    ],
    'No., Fig. and month names': [
      'See Fig. 3 and item No. 5 for details. It opened on Jan. 5 in Paris.',
      ['See Fig. 3 and item No. 5 for details.', 'It opened on Jan. 5 in Paris.'],
    ],
    decimals: ['Pi is about 3.14 and a coffee costs $1.5 today. Fine.', ['Pi is about 3.14 and a coffee costs $1.5 today.', 'Fine.']],
    initials: ['J. R. R. Tolkien wrote it. John F. Kennedy read it.', ['J. R. R. Tolkien wrote it.', 'John F. Kennedy read it.']],
    ellipses: ['Wait... what happened? He paused... Then he left.', ['Wait... what happened?', 'He paused...', 'Then he left.']],
    'quotes and brackets after the period': [
      'He said "Stop." Then he left. (It was late.) We went home.',
      ['He said "Stop."', 'Then he left.', '(It was late.)', 'We went home.'],
    ],
    'list items': ['Bring:\n- a tent\n* a lamp\n• a map\n1. water\n2) food', ['Bring:', 'a tent', 'a lamp', 'a map', 'water', 'food']],
    'headings and hard-wrapped paragraphs': [
      '# Leave policy\nEmployees get 25 days\nof paid leave. Ask early.\n\n## Parking\nThere are 120 spaces.',
      ['Leave policy', 'Employees get 25 days of paid leave.', 'Ask early.', 'Parking', 'There are 120 spaces.'],
    ],
    'CJK full stops': ['今日は晴れです。明日は雨です！本当ですか？', ['今日は晴れです。', '明日は雨です！', '本当ですか？']],
  };
  for (const [name, [text, expected]] of Object.entries(cases)) {
    it(name, () => expect(splitSentences(text)).toEqual(expected));
  }
});
