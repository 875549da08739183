/** Small pure helpers with no home of their own; nothing here touches Node, so the browser page may use them too. */
export { formatBytes, parseByteSize } from './bytes.js';
