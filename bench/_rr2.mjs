import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, basename } from 'node:path';
import sharp from 'sharp';
const { openLexicon } = await import('../dist/ocr/index.js');
const TD = '/root/.local/share/quire/tessdata/4.0.0_best_int';
const lex = {};
async function L(code) { if (!(code in lex)) lex[code] = await openLexicon(code); return lex[code]; }
const split = (t) => { const c = Array.from(t); const s = c.findIndex((x) => /[\p{L}\p{N}]/u.test(x)); let e = c.length; while (e > 0 && !/\p{L}/u.test(c[e - 1])) e--; return s < 0 || e <= s ? { prefix: t, core: '', suffix: '' } : { prefix: c.slice(0, s).join(''), core: c.slice(s, e).join(''), suffix: c.slice(e).join('') }; };
const script = (w) => /[\u0370-\u03ff\u1f00-\u1fff]/u.test(w) ? 'G' : 'L';
function lev(a, b) { a = Array.from(a); b = Array.from(b); let p = b.map((_, j) => j + 1); p.unshift(0); for (let i = 1; i <= a.length; i++) { const c = [i]; for (let j = 1; j <= b.length; j++) c[j] = Math.min(p[j] + 1, c[j - 1] + 1, p[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)); p = c; } return p[b.length]; }
const [proj, truthFile, psm = '6'] = process.argv.slice(2);
const truth = truthFile ? new Set(readFileSync(truthFile, 'utf8').split(/\s+/).map((w) => split(w).core)) : null;
const m = JSON.parse(readFileSync(join(proj, 'project.json'), 'utf8'));
let good = 0, bad = 0, n = 0;
for (const p of m.pages) {
  const ocr = JSON.parse(readFileSync(join(proj, p.ocr), 'utf8'));
  const lexs = (await Promise.all(ocr.languages.map(L))).filter(Boolean);
  const has = (w) => lexs.some((l) => l.has(w) || l.has(w.toLowerCase()));
  const words = ocr.blocks.flatMap((b) => b.paragraphs.flatMap((pp) => pp.lines.flatMap((l) => l.words.map((w) => ({ ...w, line: l })))));
  const unknown = words.filter((w) => w.unknown && Array.from(split(w.text).core).filter((c) => /\p{L}/u.test(c)).length >= 2);
  if (!unknown.length) continue;
  const img = join(proj, p.ocrImage ?? p.file);
  const meta = await sharp(img).metadata();
  const crops = [];
  for (const w of unknown) {
    const lb = w.line.box; const h = lb.y1 - lb.y0; const pad = Math.round(h * 0.25);
    const x0 = Math.max(0, w.box.x0 - pad), x1 = Math.min(meta.width, w.box.x1 + pad);
    const y0 = Math.max(0, Math.min(lb.y0, w.box.y0) - pad), y1 = Math.min(meta.height, Math.max(lb.y1, w.box.y1) + pad);
    const S = Number(process.env.SCALE ?? 1); const cw = Math.round((x1 - x0) * S), ch = Math.round((y1 - y0) * S);
    crops.push({ w, buf: await sharp(img).extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).greyscale().resize(cw, ch, { kernel: 'lanczos3' }).raw().toBuffer(), width: cw, height: ch });
  }
  const gap = 20; const W = Math.max(...crops.map((c) => c.width)) + 2 * gap;
  let y = gap; const placed = crops.map((c) => { const at = y; y += c.height + gap; return { ...c, top: at }; });
  const strip = Buffer.alloc(W * y, 255);
  for (const c of placed) for (let r = 0; r < c.height; r++) c.buf.copy(strip, (c.top + r) * W + gap, r * c.width, (r + 1) * c.width);
  await sharp(strip, { raw: { width: W, height: y, channels: 1 } }).png().toFile('/tmp/rr/strip.png');
  const tsv = execFileSync('tesseract', ['/tmp/rr/strip.png', '-', '--psm', psm, '-l', ocr.languages.join('+'), '--tessdata-dir', TD, '-c', 'tessedit_create_tsv=1', ...(process.env.TM ? ['-c', 'thresholding_method=' + process.env.TM] : []), ...(process.env.DPI ? ['--dpi', process.env.DPI] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const got = placed.map(() => []); const conf = [];
  for (const row of tsv.split('\n').slice(1)) { const f = row.split('\t'); if (f.length < 12 || f[0] !== '5' || !f[11].trim()) continue; const cy = Number(f[7]) + Number(f[9]) / 2; const k = placed.findIndex((c) => cy >= c.top && cy < c.top + c.height); if (k >= 0) { got[k].push(f[11]); (conf[k] ??= []).push(Number(f[10])); } }
  placed.forEach((c, k) => {
    n++;
    const was = split(c.w.text).core; const now = got[k].length === 1 ? split(got[k][0]).core : null;
    const letters = (w) => Array.from(w).filter((c) => /\p{L}/u.test(c)).length;
    const len = letters(was); const allowed = len <= 4 ? 1 : len <= 7 ? 2 : 3;
    const ok = now && now !== was && script(now) === script(was) && has(now) && !has(was) && letters(now) >= 2 && lev(was.toLowerCase(), now.toLowerCase()) <= allowed;
    if (process.env.DBG) console.log("  ", c.w.text, "=>", got[k].join(" "));
    if (!ok) return;
    const right = truth ? truth.has(now) : null;
    if (right) good++; else bad++;
    console.log(`${right ? '✓' : '✗'} ${c.w.text} (${c.w.confidence}) -> ${got[k].join(' ')} (${conf[k]}) d=${lev(was.toLowerCase(), now.toLowerCase())}`);
  });
}
console.log(`unknown ${n}, accepted ${good + bad}, in truth ${good}`);
