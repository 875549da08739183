// Tesseract with your own model: an OCR engine plugin for Quire. Put one or more .traineddata files in this
// plugin's files folder (<APP_DATA>/plugins/data/tesseract-own-model/files/); each file's name, without
// .traineddata and in lower case, is a language this engine reads: `--ocr tesseract-own-model:lang=frk_old`.
// The plugin may not start programs, so it asks Quire to run tesseract with that one model (OMP_THREAD_LIMIT=1)
// and turns tesseract's TSV into lines and words with their boxes and confidences.
import { readdirSync } from 'node:fs';
import { OcrEnginePlugin, registerOcrEnginePlugin } from 'quire/plugin-api';

const MODEL = /^([a-z0-9][a-z0-9_-]{0,39})\.traineddata$/;

class TesseractOwnModel extends OcrEnginePlugin {
  name = 'tesseract-own-model';
  display = 'Tesseract with your own model';
  description = 'tesseract reading with a .traineddata file you put in its files folder';
  timeoutMs = 300_000;

  languages() {
    try {
      return readdirSync(this.ctx.dataDir).flatMap((f) => MODEL.exec(f)?.[1] ?? []).sort();
    } catch {
      return [];
    }
  }

  async recognize(page, languages) {
    const lines = [];
    // One model per language named; the first that reads anything gives the page (tesseract reads one model per run here).
    const tsv = await this.tesseract({ page, model: `${languages[0]}.traineddata`, psm: 3 });
    let current;
    for (const row of tsv.split('\n').slice(1)) {
      const cells = row.split('\t');
      if (cells.length < 12) continue;
      const [level, , block, par, line, , left, top, width, height, conf, ...rest] = cells;
      const text = rest.join('\t').trim();
      const box = { x0: Number(left), y0: Number(top), x1: Number(left) + Number(width), y1: Number(top) + Number(height) };
      if (level === '4') {
        current = { key: `${block}.${par}.${line}`, box, words: [] };
        lines.push(current);
      } else if (level === '5' && current && text !== '') {
        current.words.push({ text, box, confidence: Math.max(0, Math.min(100, Number(conf))) });
      }
    }
    return { lines: lines.filter((l) => l.words.length > 0).map(({ box, words }) => ({ box, words })) };
  }
}

registerOcrEnginePlugin(TesseractOwnModel);
