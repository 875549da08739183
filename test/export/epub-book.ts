/**
 * A four-page Greek book with a known structure, for the EPUB tests: a title and three chapters (two of them
 * starting mid-page), running heads and page numbers, a paragraph crossing a page break, footnotes called by
 * superscripts, and a drawing of a ship no OCR reads (a figure). Our own text. And a project folder to export
 * from, made of typeset pages as a project keeps them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import type { ExportTarget } from '../../src/export/index.js';
import { writePageImage, type OcrPage, type ProjectManifest, type ProjectPage } from '../../src/project/index.js';
import { drawSetter, PageSetter } from './markdown-builder.js';

const HEAD = 40;
const NOTE = 38;
const CHAPTER = 62;

/** Where the ship is drawn on page 3, in page pixels; the OCR reads nothing there. */
export const SHIP = { page: 3, x0: 500, y0: 620, x1: 1250, y1: 1100 };

/** The four pages, set. */
export function greekSetters(): PageSetter[] {
  const one = new PageSetter()
    .skip(2)
    .centred('ΤΟ ΛΙΜΑΝΙ', 80)
    .skip(1)
    .centred('ΚΕΦΑΛΑΙΟ ΠΡΩΤΟ', CHAPTER)
    .skip(1.5)
    .paragraph(
      'Το πρωί ο ήλιος ανέβαινε αργά πάνω από τη θάλασσα, και τα μικρά καΐκια έβγαιναν ένα ένα από το λιμάνι. Οι ψαράδες μιλούσαν δυνατά¹ για τον καιρό και για τα δίχτυα τους.',
    )
    .paragraph(
      'Στην προκυμαία η γιαγιά Ελένη άνοιγε το καφενείο της, όπως έκανε κάθε μέρα εδώ και σαράντα χρόνια. Έβαζε τις καρέκλες στη σειρά και περίμενε τους πρώτους πελάτες.',
      { indent: 1.5 },
    )
    .paragraph(
      'Ο μικρός Νίκος καθόταν πάντα στο ίδιο τραπέζι, κοντά στο παράθυρο, και κοίταζε τα πλοία που περνούσαν μακριά στον ορίζοντα. Ήθελε να ταξιδέψει κι αυτός σε',
      { indent: 1.5, justifyLast: true },
    )
    .at(2250)
    .body('1 Οι ψαράδες του νησιού ξεκινούν πάντα πριν από την αυγή.', { size: NOTE, indent: 1, end: true })
    .at(2380)
    .centred('1', HEAD);

  const two = new PageSetter()
    .row({ left: '2', centre: 'ΤΟ ΛΙΜΑΝΙ' }, HEAD)
    .skip(1)
    .paragraph('μακρινά λιμάνια, να δει πόλεις με ψηλά σπίτια και ανθρώπους που μιλούσαν άλλες γλώσσες.')
    .paragraph('Η μητέρα του όμως ήθελε να μείνει στο νησί² και να μάθει την τέχνη του πατέρα του.', { indent: 1.5 })
    .skip(1.5)
    .centred('ΚΕΦΑΛΑΙΟ ΔΕΥΤΕΡΟ', CHAPTER)
    .skip(1.5)
    .paragraph('Το καλοκαίρι έφτασε νωρίς εκείνη τη χρονιά. Οι ξένοι γέμισαν τα δρομάκια και τα μαγαζιά έμεναν ανοιχτά ως αργά τη νύχτα.')
    .paragraph('Ο Νίκος βοηθούσε τη γιαγιά του στο καφενείο και μάθαινε λίγα αγγλικά από τους ξένους.', { indent: 1.5 })
    .at(2300)
    .body('2 Το νησί είχε τότε λιγότερους από χίλιους κατοίκους.', { size: NOTE, indent: 1, end: true });

  const three = new PageSetter()
    .row({ centre: 'ΤΟ ΛΙΜΑΝΙ', right: '3' }, HEAD)
    .skip(1)
    .paragraph('Ένα απόγευμα ένας γέρος ναυτικός κάθισε στο τραπέζι του και άρχισε να του λέει ιστορίες από τα ταξίδια του³ στις μακρινές θάλασσες.', {
      indent: 1.5,
    })
    .skip(11)
    .paragraph('Ο Νίκος άκουγε χωρίς να μιλά, και εκείνο το βράδυ δεν μπόρεσε να κοιμηθεί.', { indent: 1.5 })
    .at(2300)
    .body('3 Ο ναυτικός είχε δουλέψει είκοσι χρόνια σε εμπορικά πλοία.', { size: NOTE, indent: 1, end: true });

  const four = new PageSetter()
    .row({ left: '4', centre: 'ΤΟ ΛΙΜΑΝΙ' }, HEAD)
    .skip(2)
    .centred('ΚΕΦΑΛΑΙΟ ΤΡΙΤΟ', CHAPTER)
    .skip(1.5)
    .paragraph('Πέρασαν πολλά χρόνια. Ο Νίκος έγινε καπετάνιος και ταξίδεψε σε όλο τον κόσμο, αλλά κάθε καλοκαίρι γύριζε στο νησί.')
    .paragraph('Καθόταν στο ίδιο τραπέζι, κοντά στο παράθυρο, και κοίταζε τα καΐκια που έβγαιναν από το λιμάνι.', { indent: 1.5 });

  return [one, two, three, four];
}

/** A ship: hull, mast, two sails and the sea, in thick strokes. */
function drawShip(ctx: SKRSContext2D): void {
  const { x0, y0, x1, y1 } = SHIP;
  ctx.lineWidth = 8;
  ctx.strokeStyle = '#000';
  ctx.beginPath();
  ctx.moveTo(x0 + 60, y1 - 130);
  ctx.lineTo(x1 - 60, y1 - 130);
  ctx.lineTo(x1 - 140, y1 - 40);
  ctx.lineTo(x0 + 140, y1 - 40);
  ctx.closePath();
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo((x0 + x1) / 2, y1 - 130);
  ctx.lineTo((x0 + x1) / 2, y0 + 10);
  ctx.lineTo(x1 - 120, y1 - 170);
  ctx.lineTo((x0 + x1) / 2, y1 - 170);
  ctx.moveTo((x0 + x1) / 2 - 20, y0 + 60);
  ctx.lineTo(x0 + 150, y1 - 170);
  ctx.lineTo((x0 + x1) / 2 - 20, y1 - 170);
  ctx.stroke();
  ctx.beginPath();
  for (let x = x0; x < x1; x += 75) {
    ctx.moveTo(x, y1 - 15);
    ctx.quadraticCurveTo(x + 37, y1 - 45, x + 75, y1 - 15);
  }
  ctx.stroke();
}

/** The Greek book's pages: the OCR of each (what the typesetter set, no more) and its image, the ship on page 3. */
export async function greekPages(): Promise<{ ocr: OcrPage; png: Buffer }[]> {
  // One page drawn at a time: several @napi-rs/canvas drawings at once can crash the process (see epub.test.ts).
  const pages: { ocr: OcrPage; png: Buffer }[] = [];
  for (const [i, setter] of greekSetters().entries())
    pages.push({ ocr: { ...setter.page(), languages: ['ell'] }, png: await drawSetter(setter, i + 1 === SHIP.page ? drawShip : undefined) });
  return pages;
}

/**
 * A project folder holding `pages` as the pipeline leaves them (`kind`: G4 TIFF for `bitonal`, else grey JPEG),
 * each page's OCR beside it, read in `languages`; returns the target an exporter writes `<dir>/out/<name>.<ext>` from.
 */
export async function writeProject(
  dir: string,
  name: string,
  pages: { ocr: OcrPage; png: Buffer }[],
  options: { languages: string[]; kind?: 'bitonal' | 'gray'; extension: string },
): Promise<ExportTarget> {
  const { languages, kind = 'gray', extension } = options;
  mkdirSync(join(dir, 'pages'), { recursive: true });
  mkdirSync(join(dir, 'ocr'), { recursive: true });
  mkdirSync(join(dir, 'out'), { recursive: true });
  const projectPages: ProjectPage[] = [];
  const ocr = new Map<number, OcrPage>();
  for (const [i, page] of pages.entries()) {
    const index = i + 1;
    const stem = join(dir, 'pages', String(index).padStart(4, '0'));
    const { data, info } = await sharp(page.png).greyscale().raw().toBuffer({ resolveWithObject: true });
    if (kind === 'bitonal') for (let k = 0; k < data.length; k++) data[k] = data[k] < 128 ? 0 : 255;
    const file = await writePageImage({ data: new Uint8Array(data), width: info.width, height: info.height, channels: 1 }, kind, page.ocr.dpi, stem);
    const ocrFile = `ocr/${String(index).padStart(4, '0')}.json`;
    writeFileSync(join(dir, ocrFile), JSON.stringify(page.ocr));
    ocr.set(index, page.ocr);
    projectPages.push({
      index,
      file: file.slice(dir.length + 1),
      kind,
      width: info.width,
      height: info.height,
      dpi: page.ocr.dpi,
      ocr: ocrFile,
      source: { input: `synthetic-${index}.png`, frame: index, side: 'single' },
      decisions: { preset: 'book', inputDpi: { value: page.ocr.dpi, source: 'default' } },
    });
  }
  const manifest: ProjectManifest = {
    format: 'quire-project',
    version: 1,
    name,
    created: '2025-01-01T00:00:00.000Z',
    inputs: ['synthetic'],
    pages: projectPages,
    ocr: { engine: 'none', languages },
  };
  writeFileSync(join(dir, 'project.json'), JSON.stringify(manifest));
  return { projectDir: dir, manifest, ocr, path: join(dir, 'out', `${name}${extension}`) };
}
