/**
 * What ingest hands to the pipeline: a document as an ordered list of frames, each loaded only when asked.
 */
import type { ImageBytes } from '../imaging/index.js';
import type { OcrPage } from '../project/index.js';

/**
 * `camera`: a photo of a book (a bundle frame, a camera JPEG without a resolution).
 * `scan`: a scanned page (a PDF page that is one image, a TIFF/PNG with a resolution of 150 dpi or more).
 * `digital`: a vector PDF page, rasterised.
 */
export type FrameKind = 'camera' | 'scan' | 'digital';

/** A loaded frame: encoded bytes sharp reads, or raw pixels (one home for the type: `ImageBytes` in imaging). */
export type FrameImage = ImageBytes;

export interface SourceFrame {
  /** 1-based position in the document. */
  index: number;
  /** Label for the user and project.json: 'images/0001.jpg', 'book.pdf#3', 'scan.tif#2'. */
  input: string;
  kind: FrameKind;
  dpi?: { value: number; source: 'manifest' | 'image' | 'pdf' };
  /** Reads or renders this frame only, so a long document never sits in memory whole. */
  load(): Promise<FrameImage>;
  /**
   * Set on a PDF page that already has a text layer (visible text, or the invisible text of an earlier OCR) and
   * that can be copied into a new PDF as it is; absent on every other frame.
   */
  textLayer?: TextLayerPage;
}

/** A PDF page with text of its own: where to copy it from, and its words. */
export interface TextLayerPage {
  /** The PDF file, as opened, and the page's 1-based number in it. */
  pdf: string;
  page: number;
  /** The page as the viewer shows it (crop box, rotation), in pixels at `dpi`: the space of the words' boxes. */
  width: number;
  height: number;
  dpi: number;
  /** The words of the text layer, in the order the PDF draws them, as an OCR result (engine `pdf`, exact text). */
  textContent(): Promise<OcrPage>;
}

export interface OpenedInput {
  /** Document name: the bundle's `project`, else the input file stem. */
  name: string;
  kind: 'bundle' | 'pdf' | 'images';
  frames: SourceFrame[];
  /** Releases the zip or PDF handles; frames cannot be loaded afterwards. */
  close(): Promise<void>;
}

export type InputType = 'bundle' | 'pdf' | 'image' | 'project';
