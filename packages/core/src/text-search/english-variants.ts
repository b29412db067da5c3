/**
 * Words written differently for the same thing, folded to one form before stemming, so that
 * "What colour…" finds "painted in the club colors" and "Who wrote…" finds "written by": British
 * spellings become American ones, and irregular verb forms their base form. Only forms that are
 * not also common words of another meaning are listed ("left", "found", "rose", "felt", "saw",
 * "lead" and the like stay as they are): a miss loses a match, a wrong fold would make one.
 */

/** British `-our` stems: `colour`, `colours`, `coloured`, `colourful` → `color…`. */
const OUR =
  /^(colo|flavo|hono|labo|neighbo|favo|harbo|behavio|humo|rumo|vapo|odo|armo|savo|valo|vigo|endeavo|parlo|splendo|tumo|clamo|rigo)ur/;
/** British `-re` nouns and their plurals: `centre`, `centres` → `center`, `centers`. */
const RE = /^(cent|theat|met|kilomet|centimet|millimet|lit|millilit|fib|calib|lust|somb|spect|sab|meag)re(s?)$/;

/** Whole words: other British spellings, and irregular past forms (and participles) of verbs. */
const WORDS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // British spellings
    grey: 'gray',
    greys: 'grays',
    aluminium: 'aluminum',
    defence: 'defense',
    offence: 'offense',
    licence: 'license',
    practise: 'practice',
    programme: 'program',
    programmes: 'programs',
    catalogue: 'catalog',
    catalogues: 'catalogs',
    dialogue: 'dialog',
    analyse: 'analyze',
    analysed: 'analyzed',
    travelled: 'traveled',
    travelling: 'traveling',
    traveller: 'traveler',
    travellers: 'travelers',
    cancelled: 'canceled',
    cancelling: 'canceling',
    labelled: 'labeled',
    modelled: 'modeled',
    fuelled: 'fueled',
    levelled: 'leveled',
    jewellery: 'jewelry',
    mould: 'mold',
    plough: 'plow',
    organise: 'organize',
    organised: 'organized',
    organisation: 'organization',
    organisations: 'organizations',
    realise: 'realize',
    realised: 'realized',
    recognise: 'recognize',
    recognised: 'recognized',
    apologise: 'apologize',
    summarise: 'summarize',
    prioritise: 'prioritize',
    authorise: 'authorize',
    authorised: 'authorized',
    minimise: 'minimize',
    maximise: 'maximize',
    optimise: 'optimize',
    specialise: 'specialize',
    specialised: 'specialized',
    emphasise: 'emphasize',
    criticise: 'criticize',
    // irregular verbs: past and participle → base
    wrote: 'write',
    written: 'write',
    began: 'begin',
    begun: 'begin',
    bought: 'buy',
    built: 'build',
    came: 'come',
    drove: 'drive',
    driven: 'drive',
    gave: 'give',
    given: 'give',
    went: 'go',
    gone: 'go',
    grew: 'grow',
    grown: 'grow',
    held: 'hold',
    kept: 'keep',
    knew: 'know',
    known: 'know',
    lost: 'lose',
    made: 'make',
    met: 'meet',
    paid: 'pay',
    rode: 'ride',
    ridden: 'ride',
    said: 'say',
    sold: 'sell',
    sent: 'send',
    sang: 'sing',
    sung: 'sing',
    spoken: 'speak',
    spent: 'spend',
    stood: 'stand',
    stole: 'steal',
    stolen: 'steal',
    swam: 'swim',
    taught: 'teach',
    took: 'take',
    taken: 'take',
    thought: 'think',
    told: 'tell',
    threw: 'throw',
    thrown: 'throw',
    understood: 'understand',
    woke: 'wake',
    wore: 'wear',
    worn: 'wear',
    won: 'win',
    chose: 'choose',
    chosen: 'choose',
    drew: 'draw',
    drawn: 'draw',
    ate: 'eat',
    eaten: 'eat',
    flew: 'fly',
    flown: 'fly',
    forgot: 'forget',
    forgotten: 'forget',
    froze: 'freeze',
    frozen: 'freeze',
    hid: 'hide',
    hidden: 'hide',
    brought: 'bring',
    caught: 'catch',
    fought: 'fight',
    sought: 'seek',
    broke: 'break',
    broken: 'break',
    became: 'become',
    blew: 'blow',
    blown: 'blow',
    fed: 'feed',
    fled: 'flee',
    heard: 'hear',
    slept: 'sleep',
    struck: 'strike',
    swept: 'sweep',
    sank: 'sink',
    sunk: 'sink',
    swore: 'swear',
    sworn: 'swear',
    wept: 'weep',
    arose: 'arise',
    arisen: 'arise',
    forbade: 'forbid',
    forbidden: 'forbid',
    shrank: 'shrink',
    shrunk: 'shrink',
    undertook: 'undertake',
    undertaken: 'undertake',
    withdrew: 'withdraw',
    withdrawn: 'withdraw',
    overtook: 'overtake',
    overtaken: 'overtake',
  }),
);

/**
 * One spelling for a lower-case Latin word: American for a British one (`colour` → `color`,
 * `centres` → `centers`, `organised` → `organized`), the base form of an irregular verb
 * (`wrote`, `written` → `write`); any other word unchanged.
 */
export function foldEnglishVariant(word: string): string {
  const whole = WORDS.get(word);
  if (whole) return whole;
  if (word.includes('our')) {
    const our = OUR.exec(word);
    if (our) return `${our[1]}r${word.slice(our[0].length)}`;
  }
  if (word.endsWith('re') || word.endsWith('res')) {
    const re = RE.exec(word);
    if (re) return `${re[1]}er${re[2]}`;
  }
  return word;
}
