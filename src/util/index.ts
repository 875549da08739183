/** Small pure helpers with no home of their own. The page in the browser does not import them: the server formats what it shows. */
export { formatBytes, parseByteSize } from './bytes.js';
export { eachAtOnce } from './concurrency.js';
export { median } from './numbers.js';
export { editDistance, plainDigits, superscriptDigits } from './text.js';
export { ASCENT_TALL, charReach, DESCENT, glyphReach } from './glyph-shape.js';
