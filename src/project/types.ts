import type { BinarizeDecision, DeskewDecision, DewarpDecision, FactValue, PageRegion, PresetName, SharpenDecision } from './decisions.js';
import type { OcrBatchTicket } from './ocr-model.js';

/** How a page's pixels are stored in the project. */
export type PageKind = 'bitonal' | 'gray' | 'color';

/**
 * What a project page is: a page image of one of the kinds above, or (`pdf`) a page of the source PDF kept as it
 * is because it already had a text layer (`quire ocr`).
 */
export type ProjectPageKind = PageKind | 'pdf';

/** Where the page's resolution came from. */
export type DpiSource = 'option' | 'forced' | 'manifest' | 'image' | 'pdf' | 'estimate' | 'default';

/** One final page of a project, and how it was made. */
export interface ProjectPage {
  /** 1-based position in the document. */
  index: number;
  /**
   * Path of the final page image, relative to the project folder (`pages/0001.tif` G4, `.jpg` grey/colour); for a
   * `pdf` page, the source PDF copied into the project (`source.pdf`).
   */
  file: string;
  /**
   * The image OCR reads when it is not `file`: the grey page before the threshold, background levelled
   * (`pages/0001-left.ocr.jpg`), the same size and resolution as `file`. Tesseract's LSTM reads the greys a
   * threshold throws away, so camera pages read far better from it; the PDF still shows the bitonal page. A working
   * file: slim projects leave it out.
   */
  ocrImage?: string;
  kind: ProjectPageKind;
  /** For a `pdf` page: its 1-based page number in `file`. */
  pdfPage?: number;
  width: number;
  height: number;
  /**
   * Resolution of the final page image; the PDF page size is width/dpi inches. A `pdf` page has no image: width,
   * height and dpi give the pixel space of its text (its `ocr` result).
   */
  dpi: number;
  /** The page's OCR result (`ocr/0001-left.json`, one `OcrPage`), once OCR has run; for a `pdf` page, its own text. */
  ocr?: string;
  /** Hidden pages are kept in the project but left out of exports. */
  hidden?: boolean;
  /**
   * What the page prints about itself, read from the running heads and feet of the whole document once OCR has run:
   * its page number as printed (`305`, `xiv`; read, or inferred from its neighbours) and its running head. Exports
   * use this number (Markdown page markers, an EPUB's page list); edit it here to correct it.
   */
  printed?: { folio?: string; runningHead?: string };
  source: {
    /** The input file or bundle entry the page came from (`images/0001.jpg`, `book.pdf#3`). */
    input: string;
    /** 1-based frame number in the input. */
    frame: number;
    side: PageRegion['side'];
  };
  decisions: {
    preset: PresetName;
    inputDpi: { value: number; source: DpiSource };
    /** `handSet`: the box (or the split) was set by hand, not found. */
    split?: { box: PageRegion['box']; content: PageRegion['content']; gutterX?: number; handSet?: true };
    deskew?: DeskewDecision;
    /** Page curl straightened by moving pixels vertically along fitted text lines. */
    dewarp?: DewarpDecision;
    binarize?: BinarizeDecision;
    /** Final tight crop on the straightened page, in its pixels at `dpi`. */
    crop?: { x: number; y: number; width: number; height: number };
    scale?: number;
    /** The unsharp mask (or the deconvolution) before enlarging. */
    sharpen?: SharpenDecision;
    /**
     * OCR reads the grey reading image at this share of its resolution: set for a capture whose blur, enlarged to
     * the page's resolution, spans 3 px or more (it reads better smaller).
     */
    ocrScale?: number;
    /**
     * Set when the page's text read as nonsense and tesseract's orientation detection was asked: how far the page
     * was turned, clockwise (0: it was upright after all), and how sure the detection was.
     */
    orientation?: { rotated: 0 | 90 | 180 | 270; confidence: number };
    /** The input's physical size, when its resolution was stated (a scan): pages of one size share a page size. */
    inputSize?: { widthMm: number; heightMm: number };
    /**
     * The document's page size this page was set on (pixels at `dpi`), and where its cropped image was placed: every
     * page of one document gets one physical size, the printed area centred across and at the top.
     */
    pageSize?: { width: number; height: number; x: number; y: number };
    /**
     * What each processor plugin step recorded about the page, by step name (`despeckle: { removed: 41 }`); a step
     * that failed on the page records `failed` with its sentence, and the page went on without it.
     */
    plugins?: Record<string, Record<string, FactValue>>;
  };
  /** Milliseconds spent in each step for this page. */
  timings?: Record<string, number>;
}

/** `project.json`. */
export interface ProjectManifest {
  format: 'quire-project';
  version: 1;
  /** Document name: the bundle's project name or the input file stem. */
  name: string;
  created: string;
  inputs: string[];
  pages: ProjectPage[];
  /** How the pages were recognised, once OCR has run. */
  ocr?: ProjectOcr;
  /** A remote OCR batch submitted and not finished yet; `quire run <project> --check-ocr` (or the job server) finishes it. */
  ocrBatch?: ProjectOcrBatch;
}

/** How a project's pages were recognised, and what the correction step did to their words. */
export interface ProjectOcr {
  engine: string;
  languages: string[];
  /** Absent before the correction step ever ran on the project. */
  correction?: ProjectOcrCorrection;
}

/** The correction step over the whole document: every change is recorded on its word (`OcrWord.correction`). */
export interface ProjectOcrCorrection {
  /** False when turned off (`--no-correct`): the words are as the engine read them. */
  enabled: boolean;
  /** Languages checked against a dictionary, and those without one (left as read). */
  checked: string[];
  unchecked: string[];
  /** Words changed, and words checked, not found and left as read, over all pages. */
  corrected: number;
  unknown: number;
}

/** What finishing a submitted OCR batch needs, kept in `project.json` so any later process can do it. */
export interface ProjectOcrBatch {
  engine: string;
  /** The spec's options (`model`, `layout`) and languages, as submitted. */
  options: Record<string, string>;
  languages: string[] | 'auto';
  /** Indexes of the pages submitted, in the order submitted. */
  pages: number[];
  /** The engine's handle on the batch: its ids, when it was submitted, what it needs to poll. */
  ticket: OcrBatchTicket;
  /** False when the correction step was turned off for this run (`--no-correct`). */
  correct?: boolean;
  /** The exports asked for, written once the text is back, the folder they go to and their file stem. */
  exports?: Array<{ format: string; options: Record<string, string | true> }>;
  outDir?: string;
  fileStem?: string;
}
