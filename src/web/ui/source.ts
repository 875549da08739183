/** Where a page came from, as the page view and the grid name it. */
import type { PageView } from '../api-types.js';

/** A page of a PDF input (`book.pdf`, or `book.pdf#3` inside a bundle), not a camera frame. */
export function fromPdf(page: Pick<PageView, 'source'>): boolean {
  return /\.pdf(?:#\d+)?$/i.test(page.source.input);
}
