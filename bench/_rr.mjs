import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import sharp from 'sharp';
const [proj, scale = '1.5', psm = '7'] = process.argv.slice(2);
const m = JSON.parse(readFileSync(join(proj, 'project.json'), 'utf8'));
const TD = '/root/.local/share/quire/tessdata/4.0.0_best_int';
for (const p of m.pages) {
  const ocr = JSON.parse(readFileSync(join(proj, p.ocr), 'utf8'));
  const words = ocr.blocks.flatMap((b) => b.paragraphs.flatMap((pp) => pp.lines.flatMap((l) => l.words.map((w) => ({ ...w, line: l })))));
  const unknown = words.filter((w) => w.unknown);
  const img = join(proj, p.ocrImage ?? p.file);
  const meta = await sharp(img).metadata();
  for (const w of unknown) {
    const lb = w.line.box;
    const pad = Math.round((lb.y1 - lb.y0) * 0.25);
    const x0 = Math.max(0, w.box.x0 - pad), x1 = Math.min(meta.width, w.box.x1 + pad);
    const y0 = Math.max(0, Math.min(lb.y0, w.box.y0) - pad), y1 = Math.min(meta.height, Math.max(lb.y1, w.box.y1) + pad);
    const s = Number(scale);
    await sharp(img).extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).resize(Math.round((x1 - x0) * s), null, { kernel: 'lanczos3' }).extend({ top: 20, bottom: 20, left: 20, right: 20, background: '#ffffff' }).png().toFile('/tmp/rr/w.png');
    const out = execFileSync('tesseract', ['/tmp/rr/w.png', '-', '--psm', psm, '-l', ocr.languages.join('+'), '--tessdata-dir', TD], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    console.log(`${w.correction?.from ?? w.text}\t${w.text}\t${out}`);
  }
}
