/**
 * Language codes: what people type (BCP-47 `fr-FR`, tesseract `fra`), what tesseract loads
 * (`fra`), what `franc` answers (ISO 639-3, `fra`), and which script each language writes in.
 * Pure tables and look-ups; nothing here touches the disk.
 */

/** BCP-47 primary language subtag → tesseract code: what we ship plus common others. */
const BCP47_TO_TESSERACT: Readonly<Record<string, string>> = {
  en: 'eng',
  fr: 'fra',
  de: 'deu',
  es: 'spa',
  it: 'ita',
  la: 'lat',
  pt: 'por',
  el: 'ell',
  grc: 'grc',
  ru: 'rus',
  uk: 'ukr',
  be: 'bel',
  bg: 'bul',
  sr: 'srp',
  mk: 'mkd',
  pl: 'pol',
  cs: 'ces',
  sk: 'slk',
  sl: 'slv',
  hr: 'hrv',
  bs: 'bos',
  hu: 'hun',
  ro: 'ron',
  nl: 'nld',
  sv: 'swe',
  da: 'dan',
  no: 'nor',
  nb: 'nor',
  nn: 'nor',
  fi: 'fin',
  et: 'est',
  lv: 'lav',
  lt: 'lit',
  is: 'isl',
  ga: 'gle',
  cy: 'cym',
  eu: 'eus',
  ca: 'cat',
  gl: 'glg',
  oc: 'oci',
  tr: 'tur',
  ar: 'ara',
  he: 'heb',
  yi: 'yid',
  fa: 'fas',
  hi: 'hin',
  sa: 'san',
  ja: 'jpn',
  ko: 'kor',
  zh: 'chi_sim',
  vi: 'vie',
  th: 'tha',
  id: 'ind',
  ms: 'msa',
  sq: 'sqi',
  eo: 'epo',
};

/** BCP-47 language + script (or region) pairs whose tesseract data is separate. */
const BCP47_VARIANTS: Readonly<Record<string, string>> = {
  'zh-hans': 'chi_sim',
  'zh-cn': 'chi_sim',
  'zh-sg': 'chi_sim',
  'zh-hant': 'chi_tra',
  'zh-tw': 'chi_tra',
  'zh-hk': 'chi_tra',
  'zh-mo': 'chi_tra',
  'sr-latn': 'srp_latn',
  'az-cyrl': 'aze_cyrl',
  'uz-cyrl': 'uzb_cyrl',
};

/** ISO 639-3 codes (franc) that tesseract spells differently. */
const ISO6393_TO_TESSERACT: Readonly<Record<string, string>> = {
  zlm: 'msa',
  arb: 'ara',
  pes: 'fas',
  prs: 'fas',
  uzn: 'uzb',
  azj: 'aze',
  swh: 'swa',
  lvs: 'lav',
  ekk: 'est',
  khk: 'mon',
  nob: 'nor',
  nno: 'nor',
  als: 'sqi',
  npi: 'nep',
  cmn: 'chi_sim',
  ydd: 'yid',
};

/** English names for `quire list ocr`. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  eng: 'English',
  fra: 'French',
  deu: 'German',
  spa: 'Spanish',
  ita: 'Italian',
  lat: 'Latin',
  por: 'Portuguese',
  ell: 'Greek',
  grc: 'Ancient Greek',
  rus: 'Russian',
  ukr: 'Ukrainian',
  bul: 'Bulgarian',
  pol: 'Polish',
  nld: 'Dutch',
  ces: 'Czech',
  heb: 'Hebrew',
  ara: 'Arabic',
  chi_sim: 'Chinese (simplified)',
  chi_tra: 'Chinese (traditional)',
  jpn: 'Japanese',
};

/** Languages whose writing is not Latin script, by script; everything else is taken as Latin. */
const NON_LATIN_SCRIPT: Readonly<Record<string, Script>> = {
  ell: 'Greek',
  grc: 'Greek',
  rus: 'Cyrillic',
  ukr: 'Cyrillic',
  bel: 'Cyrillic',
  bul: 'Cyrillic',
  srp: 'Cyrillic',
  mkd: 'Cyrillic',
  aze_cyrl: 'Cyrillic',
  uzb_cyrl: 'Cyrillic',
  ara: 'other',
  heb: 'other',
  yid: 'other',
  fas: 'other',
  hin: 'other',
  san: 'other',
  jpn: 'other',
  kor: 'other',
  chi_sim: 'other',
  chi_tra: 'other',
  tha: 'other',
};

export type Script = 'Latin' | 'Greek' | 'Cyrillic' | 'other';

/** Every tesseract code the tables above know. */
const KNOWN_TESSERACT_CODES: ReadonlySet<string> = new Set([
  ...Object.values(BCP47_TO_TESSERACT),
  ...Object.values(BCP47_VARIANTS),
  ...Object.values(ISO6393_TO_TESSERACT),
  'frk',
  'swa',
  'nep',
  'mon',
  'uzb',
  'aze',
]);

/**
 * The tesseract code for one language as a person typed it: a tesseract code (`fra`, `chi_sim`),
 * or a BCP-47 tag (`fr`, `fr-FR`, `de-CH`, `zh-Hant`). `extraCodes` are codes known to exist
 * (installed data) beyond our tables. Undefined when we cannot tell what was meant.
 */
export function toTesseractCode(token: string, extraCodes: readonly string[] = []): string | undefined {
  const lower = token.trim().toLowerCase();
  if (lower === '') return undefined;
  if (KNOWN_TESSERACT_CODES.has(lower) || extraCodes.includes(lower)) return lower;
  const parts = lower.split(/[-_]/);
  const primary = parts[0];
  if (parts.length > 1) {
    const variant = BCP47_VARIANTS[`${primary}-${parts[1]}`];
    if (variant) return variant;
  }
  // Only a well-formed primary subtag counts, so `fr-XYZ-…` still reads as French but `fren` does not.
  if (!/^[a-z]{2,3}$/.test(primary)) return undefined;
  return BCP47_TO_TESSERACT[primary];
}

/** The tesseract code for a `franc` answer (ISO 639-3), or undefined for `und`. */
export function francToTesseract(iso6393: string): string | undefined {
  if (iso6393 === 'und') return undefined;
  return ISO6393_TO_TESSERACT[iso6393] ?? iso6393;
}

/** The ISO 639-3 code `franc` uses for a tesseract code (inverse of `francToTesseract`). */
export function tesseractToFranc(code: string): string {
  for (const [iso, tess] of Object.entries(ISO6393_TO_TESSERACT)) if (tess === code) return iso;
  return code;
}

/** Tesseract codes whose BCP-47 tag is not found by reversing the tables above. */
const TESSERACT_TO_BCP47: Readonly<Record<string, string>> = {
  chi_sim: 'zh-Hans',
  chi_tra: 'zh-Hant',
  srp_latn: 'sr-Latn',
  aze_cyrl: 'az-Cyrl',
  uzb_cyrl: 'uz-Cyrl',
  frk: 'de',
  swa: 'sw',
  nep: 'ne',
  mon: 'mn',
  uzb: 'uz',
  aze: 'az',
};

/**
 * The BCP-47 tag for a tesseract code, as a document's language is declared (`fra` → `fr`, `ell` → `el`, `grc` →
 * `grc`, `chi_tra` → `zh-Hant`); a three-letter code our tables do not know is taken as its own ISO 639-3 tag.
 * Undefined when the code is neither.
 */
export function languageTag(code: string): string | undefined {
  const lower = code.trim().toLowerCase();
  const known = TESSERACT_TO_BCP47[lower] ?? Object.entries(BCP47_TO_TESSERACT).find(([, tess]) => tess === lower)?.[0];
  if (known) return known;
  return /^[a-z]{3}$/.test(lower) ? lower : undefined;
}

/** A person's name for a tesseract language, or the code itself. */
export function languageName(code: string): string {
  return LANGUAGE_NAMES[code] ?? code;
}

/** The script a tesseract language writes in. */
export function languageScript(code: string): Script {
  return NON_LATIN_SCRIPT[code] ?? 'Latin';
}
