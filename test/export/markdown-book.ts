/**
 * A three-page "book" with a known structure, for the end-to-end Markdown tests: title and chapter heading,
 * running heads and page numbers, indented paragraphs, words hyphenated at line ends (one a compound the text also
 * writes whole), a paragraph crossing a page break, and footnotes. `markdown-book.expected.md` is its Markdown.
 */
import { PageSetter } from './markdown-builder.js';

const HEAD = 40;
const NOTE = 38;

/** The three pages, set. */
export function bookSetters(): PageSetter[] {
  const one = new PageSetter()
    .skip(2)
    .centred('PRIDE AND PREJUDICE', 80)
    .skip(1)
    .centred('CHAPTER I', 62)
    .skip(1.5)
    .body('It is a truth universally acknowledged, that a single')
    .body('man in possession of a good fortune, must be in want of')
    .body('a wife.', { end: true })
    .body('However little known the feelings or views of such a', { indent: 1.5 })
    .body('man may be on his first entering a neighbourhood, this')
    .body('truth is so well fixed in the minds of the surrounding')
    .body('families, that he is considered the rightful prop-')
    .body('erty of some one or other of their daughters.', { end: true })
    .body('“My dear Mr. Bennet,” said his lady to him one day,', { indent: 1.5 })
    .body('“have you heard that Netherfield Park is let at last?”', { end: true })
    .body('Mr. Bennet replied that he had not.', { indent: 1.5, end: true })
    .body('“But it is,” returned she; “for Mrs. Long has just been', { indent: 1.5 })
    .body('here, and she told me all about it; it is a well-known', { end: false })
    .body('fact that she hears everything first.”', { end: true })
    .at(2330)
    .centred('1', HEAD);

  const two = new PageSetter()
    .row({ left: '2', centre: 'PRIDE AND PREJUDICE' }, HEAD)
    .skip(1)
    .body('Mr. Bennet made no answer.', { indent: 1.5, end: true })
    .body('“Do you not want to know who has taken it?” cried his', { indent: 1.5 })
    .body('wife impatiently.', { end: true })
    .body('“You want to tell me, and I have no objection to hear-', { indent: 1.5 })
    .body('ing it.” This was invitation enough, as it was a well-')
    .body('known habit of hers to tell.', { end: true })
    .body('“Why, my dear, you must know, Mrs. Long says that Neth-', { indent: 1.5 })
    .body('erfield is taken by a young man of large fortune from the')
    .body('north of England; that he came down on Monday in a')
    .body('chaise and four¹ to see the place, and was so much de-')
    .body('lighted with it, that he agreed with Mr. Morris im-')
    .body('mediately; that he is to take possession before Michael-')
    .body('mas², and some of his servants are to be in the house by')
    .at(2250)
    .body('1 A light carriage drawn by four horses.', { size: NOTE, indent: 1, end: true })
    .body('2 The feast of St Michael, 29 September, one of the four', { size: NOTE, indent: 1 })
    .body('quarter days of the English year.', { size: NOTE, end: true });

  const three = new PageSetter()
    .row({ centre: 'CHAPTER I', right: '3' }, HEAD)
    .skip(1)
    .body('the end of next week.”', { end: true })
    .body('“What is his name?”', { indent: 1.5, end: true })
    .body('“Bingley.”', { indent: 1.5, end: true })
    .body('“Is he married or single?”', { indent: 1.5, end: true })
    .body('“Oh! Single, my dear, to be sure! A single man of large', { indent: 1.5 })
    .body('fortune; four or five thousand a year. What a fine thing', {})
    .body('for our girls!”', { end: true })
    .body('“How so? How can it affect them?”', { indent: 1.5, end: true });

  return [one, two, three];
}
