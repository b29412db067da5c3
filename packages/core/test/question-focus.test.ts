import { describe, expect, it } from 'vitest';
import { holdsFocus, namesPerson, questionFocus } from '../src/search/question-focus.js';

describe('question focus', () => {
  it('reads what kind of answer a question asks for', () => {
    expect(questionFocus('When was the bridge finished?')).toBe('time');
    expect(questionFocus('How many cars does she carry?')).toBe('quantity');
    expect(questionFocus('Who discovered velloite?')).toBe('person');
    expect(questionFocus('Where is the top station?')).toBe('place');
    expect(questionFocus('What is velloite?')).toBeUndefined();
  });

  it.each([
    ['It was first described in 1908 by the mining surveyor Edda Lindqvist.', true],
    ['Its keeper was Thomas J. Whitcombe, who kept a log.', true],
    ['Requests go to the office manager, Priya Anand, 48 hours ahead.', true],
    ['Commander Neil Armstrong and pilot Buzz Aldrin landed the Eagle.', true],
    ['The tenant must ask the landlord, Mr. Desmond Achebe.', true],
    ['Velloite is a rare mineral found only in the Skarn Hills of Oradel.', false],
    ['Hollins Lane Bakery in the market town of Wrexley began trading in 1987.', false],
    ['The Salt Widow is an opera in three acts.', false],
    ['In Winter the gondola closes at 4 p.m.', false],
  ])('names a person: %s → %s', (sentence, expected) => {
    expect(namesPerson(sentence)).toBe(expected);
    expect(holdsFocus(sentence, 'person')).toBe(expected);
  });
});
