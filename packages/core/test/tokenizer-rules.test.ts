import { describe, expect, it } from 'vitest';
import { foldText, stemEnglish, tokenize } from '../src/text-search/tokenizer.js';

describe('tokenize (lexical search terms)', () => {
  it('folds case, compatibility forms and accents: "Café" and "cafe" are one term', () => {
    expect(tokenize('Café NAÏVE Ünïcödé')).toEqual(['cafe', 'naiv', 'unicod']);
    expect(tokenize('cafe')).toEqual(tokenize('CAFÉ'));
    expect(tokenize('ﬁle ①')).toEqual(['file', '1']); // NFKC: ligature and circled digit
    expect(foldText('Ｆｕｌｌｗｉｄｔｈ')).toBe('fullwidth');
  });

  it('keeps letters-with-digits words whole, and decimals and versions with their dots', () => {
    expect(tokenize('COVID19 in 1969: 3.5 percent, version 1.2.3.')).toEqual(['covid19', '1969', '3.5', 'percent', 'version', '1.2.3']);
  });

  it('splits Han, kana and Thai into single characters, so a word is found by its characters', () => {
    expect(tokenize('東京タワー')).toEqual(['東', '京', 'タ', 'ワ', 'ー']);
    expect(tokenize('東京2020年')).toEqual(['東', '京', '2020', '年']);
    expect(tokenize('ภาษา')).toEqual(['ภ', 'า', 'ษ', 'า']);
  });

  it("keeps marks that belong to a script's letters (Devanagari, kana voicing): only accents are folded", () => {
    expect(tokenize('हिन्दी भाषा')).toHaveLength(2);
    expect(tokenize('が')).not.toEqual(tokenize('か'));
  });

  it('drops English stop words, including the question words queries start with', () => {
    expect(tokenize('What is the name of the first man on the Moon?')).toEqual(['name', 'first', 'man', 'moon']);
    expect(tokenize('who when how why')).toEqual([]);
    expect(tokenize('  ,.;  ')).toEqual([]);
  });

  it('stems English words lightly, the same on both sides', () => {
    expect(tokenize('Moons landings')).toEqual(tokenize('moon landing'));
    expect(tokenize('The astronauts landed')).toEqual(tokenize('astronaut lands'));
  });
});

describe('English spelling variants and irregular verbs', () => {
  it('folds British spellings to American ones, with their plurals and derived forms', () => {
    expect(tokenize('colour colours coloured')).toEqual(tokenize('color colors colored'));
    expect(tokenize('The centre of the theatre, 5 kilometres away')).toEqual(tokenize('The center of the theater, 5 kilometers away'));
    expect(tokenize('grey aluminium, organised and travelled')).toEqual(tokenize('gray aluminum, organized and traveled'));
  });

  it('folds irregular verb forms to their base, so "wrote" meets "written" and "write"', () => {
    expect(tokenize('wrote')).toEqual(tokenize('written'));
    expect(tokenize('wrote')).toEqual(tokenize('writes'));
    expect(tokenize('She bought it; they have bought')).toEqual(tokenize('She buys it; they have buy'));
  });

  it('leaves words that are also other words alone (left, found, rose, felt, lead)', () => {
    for (const word of ['left', 'found', 'rose', 'felt', 'lead', 'saw', 'four', 'tour', 'hour', 'genre', 'are']) {
      expect(tokenize(word)).toEqual(word === 'are' ? [] : [stemEnglish(word)]);
    }
  });
});

describe('stemEnglish rules', () => {
  it.each([
    ['studies', 'study'],
    ['boxes', 'box'],
    ['matches', 'match'],
    ['classes', 'class'],
    ['moons', 'moon'],
    ['news', 'news'],
    ['analysis', 'analysis'],
    ['status', 'status'],
    ['glass', 'glass'],
    ['gas', 'gas'],
    ['landing', 'land'],
    ['running', 'run'],
    ['falling', 'fall'],
    ['string', 'string'],
    ['thing', 'thing'],
    ['landed', 'land'],
    ['stopped', 'stop'],
    ['need', 'need'],
    ['speed', 'speed'],
    ['used', 'used'],
    ['quickly', 'quick'],
    ['only', 'only'],
    ['supply', 'supply'],
    ['landings', 'land'],
    ['baked', 'bake'],
    ['baking', 'bake'],
    ['bake', 'bake'],
    ['hoping', 'hope'],
    ['heated', 'heat'],
    ['ring', 'ring'],
    ['release', 'releas'],
    ['releases', 'releas'],
    ['released', 'releas'],
    ['managing', 'manag'],
    ['three', 'three'],
  ])('%s → %s', (word, stem) => {
    expect(stemEnglish(word)).toBe(stem);
  });
});
