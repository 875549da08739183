/**
 * The shapes the local web app's JSON routes answer with. The server builds them; the page
 * (`src/web/ui/`) imports these types only, so both sides agree at compile time.
 */

/** Every error answer: a stable code for programs, one sentence for people. */
export interface ApiError {
  error: { code: string; message: string; missing?: string[] };
}

export type PresetChoice = 'auto' | 'book' | 'sheet' | 'flat';

/** The app's own defaults (the Settings panel). */
export interface GuiSettings {
  /** `auto`: each input gets the preset that fits it (book for bundles, sheet for scans, flat for vector PDFs). */
  preset: PresetChoice;
  /** `none` (no OCR when opening), `auto`, or an engine name. */
  ocrEngine: string;
  /** `auto` or `+`-joined tesseract codes (`eng+fra`). */
  ocrLanguages: string;
  /** The folder exports are written to; empty for the default one (a Quire folder in the person's documents). */
  exportFolder: string;
}

export interface SettingsView extends GuiSettings {
  /** The remote OCR key is never sent back to the page: only whether one is stored, and where. */
  remoteOcrKey: { set: boolean; store?: string };
  /** The folder exports go to now: `exportFolder`, or the default one when that is empty. */
  exportFolderInUse: string;
}

export interface PresetView {
  name: 'book' | 'sheet' | 'flat';
  description: string;
}

export interface OcrEngineView {
  name: string;
  display: string;
  description: string;
  available: boolean;
  reason?: string;
  languages: Array<{ code: string; name: string }>;
}

/** What the page needs once, at start. */
export interface BootState {
  version: string;
  presets: PresetView[];
  ocrEngines: OcrEngineView[];
  settings: SettingsView;
  /** The page is shown on the computer Quire runs on, so Open folder can show a folder there. */
  local: boolean;
}

export type TaskKind = 'open' | 'rerun' | 'ocr' | 'export';

/** One frame of the input, as the pipeline goes through it. */
export interface FrameProgress {
  index: number;
  input: string;
  done: boolean;
}

export type StageState = 'waiting' | 'running' | 'done' | 'failed';

/** One stage of a task, in the order it runs: making the pages, OCR, writing each format, sending to each destination. */
export interface StageProgress {
  /** `unpack`, `pages`, `ocr`, `write:<format>`, `send:<slug>`. */
  key: string;
  /** In the person's words: "Recognising the text", "Writing the PDF", "Sending to Send to corpus". */
  label: string;
  state: StageState;
  /** Counted stages: how many of `total` `unit`s are done. */
  done?: number;
  total?: number;
  unit?: 'frame' | 'page';
  /** Milliseconds since the epoch, on the server's clock. */
  started?: number;
  ended?: number;
  /** When the first units were reported done, and how many: the pace is measured from there, start-up left out. */
  firstDone?: { at: number; done: number };
  /** What the stage does once its units are counted, when no count measures it: "checking the words". */
  doing?: string;
}

/** The running (or last) task of a document, for the progress panel. */
export interface TaskProgress {
  kind: TaskKind;
  /** Every stage of the task, the running one among them. */
  stages: StageProgress[];
  /** Seconds the running stage still needs, from its pace so far; absent until a first unit is done. */
  secondsLeft?: number;
  /**
   * With pages that may yet be read again (in their own language, or turned): the time left if they are, the far end
   * of a range from `secondsLeft` (which counts only the second readings told of so far). Absent when there is none.
   */
  secondsLeftMost?: number;
  /** When `secondsLeft` was estimated (server clock, ms), so the page can count down between reports. */
  estimatedAt?: number;
  /** Seconds one unit takes at the measured pace: a count-down below it is the last unit, which no pace predicts. */
  unitSeconds?: number;
  /** What is happening now, in a word (the `stages` say it fully). */
  stage: 'pipeline' | 'ocr' | 'export' | 'send' | 'done';
  framesTotal: number;
  /** Each frame's state, for documents short enough to list (a long book shows counts only). */
  frames?: FrameProgress[];
  framesDone: number;
  pagesDone: number;
  ocr?: { pagesDone: number; pagesTotal: number };
  started: number;
}

export type DocumentStatus = 'working' | 'ready' | 'failed' | 'cancelled';

/** A document as the list and the event stream show it. */
export interface DocumentSummary {
  id: string;
  name: string;
  status: DocumentStatus;
  /** Bumped whenever the pages change (rerun, OCR, hiding), so the page knows to fetch them again. */
  revision: number;
  /** The input's file names. */
  inputs: string[];
  pages: number;
  hiddenPages: number;
  preset: PresetChoice;
  /** The preset each page was made with, when they all agree. */
  usedPreset?: string;
  ocr?: { engine: string; languages: string[] };
  task?: TaskProgress;
  error?: { code: string; message: string };
  /** The last task that ended, so the page can say how it went. */
  lastTask?: { kind: TaskKind; outcome: 'done' | 'failed' | 'cancelled'; message?: string };
  /** When the document was opened (ms since the epoch): with the input's name, it tells two documents of one name apart. */
  openedAt: number;
  /** The pages can be shown beside their captures; a reopened slim project has no captures. */
  hasCaptures: boolean;
  /** Recognised text, or a person's corrections, that no export has taken since it changed: closing asks first. */
  unsaved: boolean;
  /** Over every visible page with text: words worth a look, and words a person has checked. */
  proofreading?: { words: number; doubtful: number; checked: number };
  /** The last export that finished, with what it wrote or sent. */
  lastExport?: ExportResult;
}

/** A box in frame pixels. */
export interface BoxView {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageView {
  index: number;
  width: number;
  height: number;
  dpi: number;
  kind: string;
  hidden: boolean;
  hasText: boolean;
  source: { input: string; frame: number; side: 'left' | 'right' | 'single' };
  preset: string;
  /** Where the page was found in its frame: the page box, the printed area, and the gutter when the frame was split. */
  /** `handSet`: the box (or the split) was set by hand in the page view, not found (see `PUT …/frames/:index/pages`). */
  split?: { box: BoxView; content: BoxView; gutterX?: number; handSet?: boolean };
  /** Degrees the page was turned to straighten it. */
  deskew?: number;
  dewarped?: boolean;
  /** What each processor plugin step did to the page (its recorded facts), or why it failed on it. */
  pluginSteps?: Array<{ step: string; failed?: string; facts: string }>;
  image: string;
  thumb: string;
  /** Pages with text: words worth a look, and words a person has checked. */
  proofreading?: { words: number; doubtful: number; checked: number };
  /** Set when the page was photographed out of focus or shaken: its text is the least sure; taking it again helps. */
  outOfFocus?: true;
}

export interface DocumentDetail extends DocumentSummary {
  pageList: PageView[];
}

export interface FrameView {
  index: number;
  input: string;
  width: number;
  height: number;
  image: string;
}

export interface PageText {
  index: number;
  text: string;
  engine?: string;
  languages?: string[];
}

/** A recognised word as the proofreading view shows it; `n` is its place in the page's reading order. */
export interface WordView {
  n: number;
  text: string;
  /** In the pixels of the page's OCR result (`PageWords.width` × `height`). */
  box: { x0: number; y0: number; x1: number; y1: number };
  confidence: number;
  /** Worth a person's look: the engine was unsure, or the correction step changed it (and no one has checked it yet). */
  doubtful: boolean;
  /**
   * The OCR correction step changed it: what the engine read, and why (`engine-choice`, `known-confusion`, `script`,
   * or another tool's own words); Quire's step also says which characters it changed and which dictionary agreed.
   */
  correction?: { from: string; reason: string; change?: string; language?: string };
  /** A person checked it: the text before their edit. */
  edit?: { from: string };
}

/** A page's recognised words, line by line, for proofreading. */
export interface PageWords {
  index: number;
  width: number;
  height: number;
  engine: string;
  languages: string[];
  lines: Array<{ paragraph: number; words: WordView[] }>;
  words: number;
  doubtful: number;
  checked: number;
}

/** What a word edit answers: the word as it now is, and the page's and document's counts. */
export interface WordEditResult {
  word: WordView;
  page: { words: number; doubtful: number; checked: number };
}

/** One card of the Export panel: a built-in format or an installed destination (`send:<slug>`). */
export interface ExporterCard {
  key: string;
  title: string;
  description: string;
  kind: 'format' | 'destination';
  /** Format cards: options with a fixed list (PDF profile). */
  options?: Array<{ name: string; label: string; values: string[]; default: string; description: string }>;
  needsOcr?: boolean;
  /** Destination cards: the formats Quire writes that it accepts (never one Quire cannot write). */
  formats?: string[];
  state?: 'ready' | 'needs-settings' | 'refused' | 'no-format';
  missing?: string[];
  reason?: string;
}

/** A file an export wrote into the export folder. */
export interface WrittenFile {
  fileName: string;
  format: string;
  bytes: number;
  /** The byte count as every message of Quire prints it (`1.2 MiB`): the page has no formatter of its own. */
  size: string;
  /** Where the browser can download it. */
  url: string;
}

/** A finished export: the files it wrote (and the folder they are in), or what each destination said. */
export interface ExportResult {
  kind: 'files' | 'send';
  /** The card's title: "PDF", "Send to corpus". */
  title: string;
  /** When it finished (ms since the epoch). */
  at: number;
  /** The stages it went through, each with its times. */
  stages: StageProgress[];
  folder?: string;
  files?: WrittenFile[];
  sends?: Array<{ ok: boolean; alreadyThere: boolean; message: string; kindLabel?: string; fileName: string; display: string }>;
}

export interface PluginView {
  slug: string;
  display: string;
  description: string;
  version: string;
  firstParty: boolean;
  /** `unreadable`: set up, but a stored secret cannot be read now (a keychain that cannot be opened). */
  state: 'ready' | 'needs-settings' | 'unreadable' | 'refused';
  missing: string[];
  /** `unreadable`: which secrets, and why (`the keychain could not be opened: …`). */
  unreadable?: string;
  reason?: string;
  accepts: string[];
  network: boolean;
}

/** How plugin processes are isolated on this machine. */
export interface IsolationView {
  level: 'full' | 'partial';
  /** In the user's words. */
  summary: string;
}

/** Where a secret typed into a settings dialog goes. */
export interface SecretStoreView {
  /** In the user's words: `the OS keychain`, `…/.env (mode 0600)`, … */
  text: string;
  /** Stored as readable text in a file (`.env` or the plugin's settings file), not in a keychain. */
  plainText: boolean;
}

export interface PluginsView {
  installed: PluginView[];
  secretStore: SecretStoreView;
  isolation: IsolationView;
}

export interface RegistryEntryView {
  slug: string;
  name: string;
  version: string;
  description: string;
  api: number;
  firstParty: boolean;
  installed: boolean;
}

export interface RegistryView {
  location: string;
  entries: RegistryEntryView[];
  /** Why the registry could not be read, in one sentence. */
  error?: string;
}

/** What the install dialog shows: what the plugin declares, read from its manifest in the registry. */
export interface RegistryDetail extends RegistryEntryView {
  author: string;
  capabilities: { network: boolean };
  hostApi: number;
  isolation: IsolationView;
  /** Byte for byte the first-party plugin shipped with this Quire: it may run where plugins cannot be isolated. */
  shipped: boolean;
  files: number;
  bytes: number;
  /** `bytes` as every message of Quire prints a size (`12.3 KiB`). */
  size: string;
}

export interface FieldView {
  id: string;
  label: string;
  kind: 'str' | 'int' | 'bool' | 'choice' | 'secret' | 'url' | 'port' | 'email' | 'duration';
  required: boolean;
  help: string;
  multiline: boolean;
  choices: string[];
  /** Ordinary settings: the value read (stored, else the default). Never present for a secret. */
  value?: string | number | boolean;
  isDefault?: boolean;
  /**
   * Secrets: stored or not, never the value; where (`store`, and `where` in the user's words), and
   * whether that is readable text in a file.
   */
  secret?: { set: boolean; unreachable?: string; store?: 'keychain' | 'env-file' | 'config-file'; where?: string; plainText?: boolean };
}

export interface PluginSettingsView {
  slug: string;
  display: string;
  description: string;
  fields: FieldView[];
  missing: string[];
  /** Where a secret typed here goes. */
  secretStore: SecretStoreView;
  /** What it may reach through Quire with the stored settings: `null` when it declares no network use. */
  hosts: string[] | null;
}

/** Values typed into a settings dialog and not saved: what Check tests (and never stores). */
export interface UnsavedSettings {
  settings?: Record<string, string | number | boolean>;
  /** Empty ones mean "the stored one". */
  secrets?: Record<string, string>;
}

export interface CheckView {
  ok: boolean;
  /** "OK", or the kind's label ("Cannot connect", "Wrong credentials", …). */
  label: string;
  kind: string | null;
  message: string;
}

export interface ConfigExportView {
  download: { url: string; fileName: string; bytes: number };
  settings: number;
  secretsWritten: string[];
  secretsUnreadable: Array<{ id: string; reason: string }>;
  secretsNotSet: string[];
  /** With secrets: the same warnings `quire plugins config --export --with-secrets` prints. */
  warnings: string[];
}

export interface ConfigImportView {
  settings: string[];
  secrets: string[];
}

/** An installed processor or OCR engine plugin, as the Plugins tab lists it. */
export interface PagePluginView {
  slug: string;
  kind: 'processor' | 'ocr';
  display: string;
  description: string;
  version: string;
  /** `ready`: accepted and loaded; `not-accepted`: never accepted; `changed`: its files changed since; `refused`: broken. */
  state: 'ready' | 'not-accepted' | 'changed' | 'refused';
  /** `sandboxed`, or `sandbox partial: no bubblewrap`. */
  sandbox: string;
  /** The sha256 of its files as they are now: what accepting it records. */
  sha256?: string;
  reason?: string;
  /** A processor's place: the built-in step it follows. */
  after?: string;
  /** An OCR engine's languages. */
  languages?: string[];
  /** What it may do once accepted, one sentence each. */
  mayDo: string[];
}

/** A processor or OCR engine the registry offers. */
export interface PageRegistryEntryView {
  slug: string;
  kind: 'processor' | 'ocr';
  name: string;
  version: string;
  description: string;
  firstParty: boolean;
  installed: boolean;
  /** The sha256 installing it records as accepted (of its files as the registry lists them). */
  sha256: string;
  mayDo: string[];
  files: number;
  size: string;
}

export interface PagePluginsView {
  installed: PagePluginView[];
  registry: PageRegistryEntryView[];
  /** Why the registry could not be read, in one sentence. */
  registryError?: string;
  isolation?: IsolationView;
}
