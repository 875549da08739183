/** What a conversion reports as it goes, to the CLI's progress bar, the job server's `/check` and the web app. */
export type ProgressEvent =
  | { type: 'start'; name: string; frames: number }
  | { type: 'frame'; framesDone: number; framesTotal: number; pagesDone: number; input: string }
  | { type: 'ocr'; pagesDone: number; pagesTotal: number }
  | { type: 'export'; format: string; path: string }
  | { type: 'done'; pages: number }
  /** Something the user should know that did not stop the run: one sentence (a plugin step failed on a page). */
  | { type: 'warning'; message: string };
