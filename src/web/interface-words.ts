/**
 * The lower layers speak to a person at a terminal: "…; set it up with: quire plugins config send-to-corpus --set …".
 * In the window the same sentence says where to click instead. Each message ends with its remedy after a `;` (or
 * `:`), so the remedy is what is replaced: known commands by the place in the app that does the same, any other
 * command-line advice left out rather than shown.
 */

/** A plugin's menu label from its slug, when the app knows it. */
export type DisplayName = (slug: string) => string | undefined;

interface Remedy {
  /** Matches the remedy clause, from its `;` or `:` to the end of the sentence. */
  pattern: RegExp;
  words: (match: RegExpExecArray, display: (slug: string) => string) => string;
}

const REMEDIES: Remedy[] = [
  { pattern: /; reinstall it with:? quire plugins install (\S+?)\.?$/, words: () => '; remove it in Plugins and install it again from the registry.' },
  { pattern: /; install it with:? quire plugins install (\S+?)\.?$/, words: () => '; install it in Plugins, under Available from the registry.' },
  { pattern: /; set it up with:? quire plugins config (\S+)[^;]*$/, words: (m, d) => `; open Plugins → ${d(m[1])} → Settings.` },
  { pattern: /; import it with:? quire plugins config (\S+) --import\.?$/, words: (m, d) => `; import it from Plugins → ${d(m[1])} → Settings → Import….` },
  { pattern: /; see quire plugins available\.?$/, words: () => '; see Plugins, under Available from the registry.' },
  {
    pattern: /; to run it anyway, install it with --allow-unisolated\.?$/,
    words: () => '; to run it anyway, tick “I trust this plugin” in its install dialog.',
  },
  {
    pattern: /; set (?:one|it|the right one) with quire config set-secret remoteocr\.api_key(?:, or the \S+ environment variable)?\.?$/,
    words: () => '; type it in Settings → Remote OCR key.',
  },
  { pattern: /; run (?:it )?again with --ocr \S+\.?$/, words: () => '; run OCR from the OCR panel first.' },
  { pattern: /; add one of its formats to --export\.?$/, words: () => '; choose one of them under Export as.' },
  { pattern: /: set it with --set-secret \S+, which reads it from standard input\.?$/, words: () => ': type it in its settings dialog, in the secret field.' },
];

/** Anything else a terminal user would type: a `quire …` command or a `--flag`. */
const COMMAND_LINE = /\bquire (?:run|ocr|gui|server|plugins|config|list)\b|(?:^|\s)--[a-z][a-z-]+/;

/** `message` with its command-line remedy in the app's words. */
export function inInterfaceWords(message: string, displayName: DisplayName = () => undefined): string {
  const display = (slug: string): string => displayName(slug) ?? slug;
  for (const remedy of REMEDIES) {
    const m = remedy.pattern.exec(message);
    if (m) return message.slice(0, m.index) + remedy.words(m, display);
  }
  if (!COMMAND_LINE.test(message)) return message;
  // Advice for the command line that the app has no place for: the sentence ends before it.
  const cut = [...message.matchAll(/[;:(]/g)].map((m) => m.index).filter((i) => COMMAND_LINE.test(message.slice(i)));
  let at = cut.length > 0 ? Math.max(...cut) : -1;
  if (at <= 0) return message;
  // Never leave a bracket open: cut where it opened instead.
  const open = message.slice(0, at).lastIndexOf('(');
  if (open > message.slice(0, at).lastIndexOf(')')) at = open;
  return `${message
    .slice(0, at)
    .trimEnd()
    .replace(/[,;:]$/, '')}.`;
}
