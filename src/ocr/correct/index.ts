/**
 * The OCR correction, entered by one verb: `correctDocument` corrects (or puts back as read) the recognised pages of
 * a project. `warmCorrector` loads the dictionaries of the languages ahead of it, while the pages are still read;
 * `openLexicon` is a language's dictionary, which the export's structure reading also consults. Its primitives
 * (confusions, full stops, letter case, typography, words read again, note calls) are this folder's own.
 */
export { correctDocument } from './document.js';
export { warmCorrector } from './correct.js';
export { openLexicon, type Lexicon } from './lexicon.js';
