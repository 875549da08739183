/**
 * How high and how low the glyphs of a text reach, in ems from the baseline, in usual book faces: what turns a word's
 * ink box into its font size (the OCR's boxes hold ink), and a font size back into ink boxes (a PDF's text layer
 * gives the font). Both sides use these, so Quire's own searchable PDF read again measures as its pages did.
 */
/** Where glyph boxes reach, in ems from the baseline, in usual book faces. */
export const ASCENT_TALL = 0.73; // capitals, digits, ascenders (b d f h k l t), accents, dots of i and j
export const ASCENT_ACCENTED_CAPITAL = 0.9; // É Ê À …: the accent stands above the capital
export const ASCENT_SHORT = 0.52; // x-height letters only (a c e m n o …)
export const DESCENT = 0.22; // g j p q y …

const ASCENDERS = new Set([...'bdfhkltijß', ...'βδζθλξ', ...'бй']);
const DESCENDERS = new Set([...'gjpqy', ...'βγζημξρςφχψ', ...'дрруфцщ']);
/** Combining marks drawn above the letter (acute, grave, circumflex, diaeresis, tonos …): they reach ascender height. */
const MARK_ABOVE = /[\u0300-\u0315\u031A\u033D-\u0344\u0346\u034A-\u034C\u0350-\u0352\u0357\u035B\u0363-\u036F]/u;

export interface Shape {
  tall: boolean;
  /** Reaches above the capitals: an accented capital (`L'UNITÉ`). */
  taller: boolean;
  descends: boolean;
}

/** Punctuation that reaches cap height, and punctuation that hangs below the baseline (`said,` is as deep as `say`). */
const TALL_MARKS = /[“”‘’'"()[\]{}/|!?&%$#@]/u;
const DEEP_MARKS = /[,;()[\]{}/|_]/u;

/** How high and how low the glyphs of a word reach; null when it has no letter or digit (a lone mark tells little). */
export function wordShape(text: string): Shape | null {
  let seen = false;
  let tall = false;
  let taller = false;
  let descends = false;
  for (const ch of text) {
    if (TALL_MARKS.test(ch)) tall = true;
    if (DEEP_MARKS.test(ch)) descends = true;
    if (!/[\p{L}\p{N}]/u.test(ch)) continue;
    seen = true;
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    const accented = MARK_ABOVE.test(ch.normalize('NFD'));
    if (/\p{N}/u.test(ch) || !cased || ch !== ch.toLowerCase() || ASCENDERS.has(ch) || accented) tall = true;
    if (accented && cased && ch !== ch.toLowerCase()) taller = true;
    if (DESCENDERS.has(ch)) descends = true;
  }
  return seen ? { tall, taller, descends } : null;
}

/** How far above and below the baseline the glyphs of `text` reach, in ems; null when it has no letter or digit. */
export function glyphReach(text: string): { above: number; below: number } | null {
  const shape = wordShape(text);
  if (!shape) return null;
  return { above: shape.taller ? ASCENT_ACCENTED_CAPITAL : shape.tall ? ASCENT_TALL : ASCENT_SHORT, below: shape.descends ? DESCENT : 0 };
}

/**
 * How far above and below the baseline one character's glyph reaches, in ems: a letter or digit as `glyphReach` says,
 * a mark as high as the capitals or the x-height, as low as the descenders or the baseline. A word's ink is the union
 * of its characters'.
 */
export function charReach(ch: string): { above: number; below: number } {
  return glyphReach(ch) ?? { above: TALL_MARKS.test(ch) ? ASCENT_TALL : ASCENT_SHORT, below: DEEP_MARKS.test(ch) ? DESCENT : 0 };
}
