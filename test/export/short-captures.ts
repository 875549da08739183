/**
 * Short captures, for the running-head tests and `npm run bench:markdown`: a user photographs one, two, three or four
 * pages of a book, too few for a running head to recur. Each capture is typeset by hand (our own text) and comes
 * with what a reader must find in its Markdown: the titles kept as headings, the running heads gone from the text,
 * the printed page numbers (folios) in the page markers.
 */
import type { OcrPage } from '../../src/project/index.js';
import { A5, PageSetter, textWidth } from './markdown-builder.js';

export interface ShortCapture {
  name: string;
  pages: OcrPage[];
  /** Lines that must come out as headings (`# …`, `## …`). */
  titles: string[];
  /** Running heads (their words, folio apart) that must not be left in the text. */
  heads: string[];
  /** The printed page number of each page, in order. */
  folios: (string | undefined)[];
}

const TEXTS = [
  'Il y avait alors dans la ville un homme que tout le monde connaissait, et dont personne ne savait rien de certain ; on le voyait chaque matin traverser la place avec un panier, saluer le boulanger et disparaître dans la ruelle qui mène au fleuve',
  'Les années passaient sans qu’il changeât rien à ses habitudes, et les enfants du quartier, qui avaient fini par le suivre de loin, racontaient qu’il parlait aux arbres du jardin et qu’il comptait les pierres du vieux mur avant de rentrer',
  'Un soir d’hiver pourtant la porte de sa maison resta ouverte, et la lumière brûla jusqu’à l’aube ; les voisins, inquiets, n’osèrent pas entrer, mais chacun se promit d’aller le lendemain frapper chez lui pour demander de ses nouvelles',
  'On le trouva assis devant sa table, une lettre à la main, souriant comme un homme qui vient d’apprendre une bonne nouvelle, et l’on ne sut jamais qui la lui avait écrite ni ce qu’elle disait, car il la brûla le jour même',
];

/** The running head's size, smaller than the body's 46 px (small capitals, or a smaller face). */
const HEAD_SIZE = 38;

/** A body page: its text in two paragraphs, indented. */
function body(setter: PageSetter, i: number): PageSetter {
  return setter.paragraph(`${TEXTS[i % 4]}.`, { indent: 1.5 }).paragraph(`${TEXTS[(i + 1) % 4]}.`, { indent: 1.5 });
}

/**
 * A verso head (`576   VII, I, 1-2 CONFESSIONUM`) or a recto head (`CONFESSIONS VII, I, 1-2   577`), set small: the
 * folio at the outer edge, the head centred (`centred`) or an em and a half from it.
 */
function headed(head: string, folio: string, side: 'verso' | 'recto', centred = false): PageSetter {
  const setter = new PageSetter();
  if (centred) return (side === 'verso' ? setter.row({ left: folio, centre: head }, HEAD_SIZE) : setter.row({ centre: head, right: folio }, HEAD_SIZE)).skip(1);
  const [width, em] = [(A5.right - A5.left) / HEAD_SIZE, (text: string): number => textWidth(text, HEAD_SIZE) / HEAD_SIZE];
  const parts =
    side === 'verso'
      ? [
          { text: folio, x: 0 },
          { text: head, x: em(folio) + 1.5 },
        ]
      : [
          { text: head, x: width - em(folio) - 1.5 - em(head) },
          { text: folio, x: width - em(folio) },
        ];
  return setter.pieces(parts, HEAD_SIZE).skip(1);
}

export function shortCaptures(): ShortCapture[] {
  const budé = [
    { head: 'VII, I, 1-2 CONFESSIONUM', folio: '576', side: 'verso' as const },
    { head: 'CONFESSIONS VII, I, 1-2', folio: '577', side: 'recto' as const },
    { head: 'VIl, II, 3 CONEESSIONVM', folio: '578', side: 'verso' as const },
    { head: 'CONFESSIONS VII, II, 3', folio: '579', side: 'recto' as const },
  ];
  return [
    {
      name: 'three pages, the first two opening with a title set large',
      pages: [
        body(new PageSetter().skip(4).centred('LIVRE PREMIER — UN JUSTE', 64).skip(1), 0).page(),
        body(new PageSetter().skip(4).centred('LIVRE PREMIER', 64).skip(1), 1).page(),
        body(new PageSetter(), 2).page(),
      ],
      titles: ['LIVRE PREMIER — UN JUSTE', 'LIVRE PREMIER'],
      heads: [],
      folios: [undefined, undefined, undefined],
    },
    {
      name: 'three pages, the first two opening with the same title set a little larger',
      pages: [
        body(new PageSetter().centred('LIVRE PREMIER', 52).skip(1), 0).page(),
        body(new PageSetter().centred('LIVRE PREMIER', 52).skip(1), 1).page(),
        body(new PageSetter(), 2).page(),
      ],
      titles: ['LIVRE PREMIER', 'LIVRE PREMIER'],
      heads: [],
      folios: [undefined, undefined, undefined],
    },
    {
      name: 'two pages opening a chapter with white space above, the same title in body capitals',
      pages: [
        body(new PageSetter().skip(5).centred('CHAPITRE PREMIER').skip(1), 0).page(),
        body(new PageSetter().skip(5).centred('CHAPITRE PREMIER').skip(1), 1).page(),
      ],
      titles: ['CHAPITRE PREMIER', 'CHAPITRE PREMIER'],
      heads: [],
      folios: [undefined, undefined],
    },
    {
      name: 'one page, its head set small and centred, the folio at the outer edge',
      pages: [body(headed(budé[0].head, budé[0].folio, 'verso', true), 0).page()],
      titles: [],
      heads: [budé[0].head],
      folios: ['576'],
    },
    {
      name: 'one page, its head in body capitals crowding the text, the folio at the far end',
      pages: [body(new PageSetter().row({ left: 'CONFESSIONS VII, I, 1-2', right: '577' }), 1).page()],
      titles: [],
      heads: ['CONFESSIONS VII, I, 1-2'],
      folios: ['577'],
    },
    {
      name: 'one page, its folio an em and a half from its head',
      pages: [body(headed(budé[0].head, budé[0].folio, 'verso'), 0).page()],
      titles: [],
      heads: [budé[0].head],
      folios: ['576'],
    },
    {
      name: 'one page, its head in small capitals without a folio, the folio at the foot',
      pages: [body(new PageSetter().centred('LES CONFESSIONS', HEAD_SIZE).skip(1), 1).at(2330).centred('577').page()],
      titles: [],
      heads: ['LES CONFESSIONS'],
      folios: ['577'],
    },
    {
      name: 'two pages, a spread: verso and recto heads in small capitals that differ, the folios at the foot',
      pages: ['LES CONFESSIONS', 'LIVRE SEPTIÈME'].map((head, i) =>
        body(new PageSetter().centred(head, HEAD_SIZE).skip(1), i)
          .at(2330)
          .centred(String(576 + i))
          .page(),
      ),
      titles: [],
      heads: ['LES CONFESSIONS', 'LIVRE SEPTIÈME'],
      folios: ['576', '577'],
    },
    {
      name: 'four pages, pp. 576–579, folios an em and a half off, the first read 516, the third S78 beside a garbled head',
      pages: budé.map((h, i) => body(headed(h.head, ['516', '577', 'S78', '579'][i], h.side), i).page()),
      titles: [],
      heads: budé.map((h) => h.head),
      folios: ['576', '577', '578', '579'],
    },
  ];
}

/** What the Markdown of a capture gets right: titles kept, heads dropped, folios in the page markers. */
export function scoreCapture(markdown: string, capture: ShortCapture): { titles: [number, number]; heads: [number, number]; folios: [number, number] } {
  const lines = markdown.split('\n');
  const headings = lines.filter((l) => /^#{1,6} /u.test(l)).map((l) => l.replace(/^#+ /u, ''));
  let from = 0;
  const titlesKept = capture.titles.filter((t) => {
    const at = headings.indexOf(t, from);
    if (at < 0) return false;
    from = at + 1;
    return true;
  }).length;
  const text = lines.filter((l) => !l.startsWith('<!--')).join('\n');
  const headsOut = capture.heads.filter((h) => !text.includes(h)).length;
  const markers = [...markdown.matchAll(/<!-- page \d+(?: \(p\. ([^)]+)\))? -->/gu)].map((m) => m[1]);
  const folios = capture.folios.filter((f, i) => markers[i] === f).length;
  return { titles: [titlesKept, capture.titles.length], heads: [headsOut, capture.heads.length], folios: [folios, capture.folios.length] };
}
