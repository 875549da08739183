import { describe, expect, it } from 'vitest';
import { MISSING_KEY_REASON } from '../../src/ocr/remote/engine.js';
import { inInterfaceWords } from '../../src/web/interface-words.js';

const names = (slug: string): string | undefined => ({ 'send-to-corpus': 'Send to corpus' })[slug];

describe('messages in the words of the window', () => {
  it('replaces the command-line remedies of the lower layers with the place in the app that does the same', () => {
    const cases: Array<[string, string]> = [
      [MISSING_KEY_REASON, 'The remote OCR engine has no API key; type it in Settings → Remote OCR key.'],
      [
        'The remote OCR service at api.example refused the API key (HTTP 401); set the right one with quire config set-secret remoteocr.api_key.',
        'The remote OCR service at api.example refused the API key (HTTP 401); type it in Settings → Remote OCR key.',
      ],
      [
        'The destination send-to-corpus is not set up (missing: API key); set it up with: quire plugins config send-to-corpus --set-secret api_key',
        'The destination send-to-corpus is not set up (missing: API key); open Plugins → Send to corpus → Settings.',
      ],
      [
        'The destination send-to-shelf is not installed; install it with: quire plugins install send-to-shelf',
        'The destination send-to-shelf is not installed; install it in Plugins, under Available from the registry.',
      ],
      [
        'The file holds the settings of send-to-corpus, not of send-to-library; import it with quire plugins config send-to-corpus --import.',
        'The file holds the settings of send-to-corpus, not of send-to-library; import it from Plugins → Send to corpus → Settings → Import….',
      ],
      [
        'The plugin registry has no destination called x; see quire plugins available.',
        'The plugin registry has no destination called x; see Plugins, under Available from the registry.',
      ],
      ['Markdown and textpack exports need OCR; run again with --ocr auto.', 'Markdown and textpack exports need OCR; run OCR from the OCR panel first.'],
    ];
    for (const [given, said] of cases) expect(inInterfaceWords(given, names)).toBe(said);
  });

  it('leaves out command-line advice it has no place for, and leaves other sentences alone', () => {
    expect(inInterfaceWords('The project in /p has no OCR batch waiting (its OCR is done; export it again with quire run /p -e <formats>).')).toBe(
      'The project in /p has no OCR batch waiting.',
    );
    expect(inInterfaceWords('Nothing to see here; it worked.')).toBe('Nothing to see here; it worked.');
    expect(inInterfaceWords('notes.txt is not a scan bundle, PDF or image that Quire can read.')).toBe(
      'notes.txt is not a scan bundle, PDF or image that Quire can read.',
    );
  });
});
