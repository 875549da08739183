/**
 * What a plugin module imports, read from its source without running it: the static check
 * discovery makes before any plugin code is loaded. A small JavaScript lexer (comments, strings,
 * template literals, regular expressions) finds every `import`/`export … from` specifier and
 * every dynamic `import()`; anything but `quire/plugin-api` and a short list of harmless Node
 * built-ins is refused, and so are the usual dynamic tricks: `require()`, `getBuiltinModule`,
 * `createRequire`, a computed member of `process` or `globalThis` (`process['getBuiltin' + 'Module']`),
 * and code built from text (`eval`, `Function`, `….constructor(…)`). The sandbox is the real wall
 * (bubblewrap, the permission model and the lockdown hold whatever the source hides); this check
 * turns most attempts into a clear refusal before the plugin ever runs.
 */

/** The module a plugin imports the API from. */
export const PLUGIN_API_SPECIFIER = 'quire/plugin-api';

/**
 * Node built-ins a plugin may import: data handling, and `fs` (confined by the sandbox to the
 * staged file and the plugin's own `files/`). Not here: `child_process`, `worker_threads`,
 * `cluster`, `vm`, `module`, `process`, `os`, `inspector`, `v8`, and the raw network modules —
 * a destination talks to its server through the API's HTTP and mail helpers or `fetch`.
 */
export const ALLOWED_BUILTINS: readonly string[] = [
  'assert',
  'buffer',
  'crypto',
  'events',
  'fs',
  'fs/promises',
  'path',
  'querystring',
  'stream',
  'stream/promises',
  'stream/web',
  'string_decoder',
  'timers',
  'timers/promises',
  'url',
  'util',
  'zlib',
];

/** One specifier found in the source, with the offsets of its string literal (quotes included). */
export interface FoundImport {
  specifier: string;
  start: number;
  end: number;
}

/** What the source imports, and why it cannot be allowed (empty when it can). */
export interface ImportScan {
  imports: FoundImport[];
  problems: string[];
}

type Token =
  | { type: 'name'; value: string; start: number; end: number }
  | { type: 'string'; value: string; start: number; end: number }
  | { type: 'punct'; value: string; start: number; end: number }
  | { type: 'other'; value: string; start: number; end: number };

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'instanceof',
  'yield',
  'await',
]);

/** True when a `/` here starts a regular expression rather than dividing. */
function slashStartsRegex(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.type === 'name') return KEYWORDS_BEFORE_EXPRESSION.has(previous.value);
  if (previous.type === 'string' || previous.type === 'other') return false;
  return ![')', ']', '}'].includes(previous.value);
}

/** Read a quoted string starting at `i` (on the quote); returns its value and the index after it. */
function readString(source: string, i: number): { value: string; end: number } {
  const quote = source[i];
  let value = '';
  let j = i + 1;
  while (j < source.length && source[j] !== quote) {
    if (source[j] === '\\') {
      const next = source[j + 1];
      const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', v: '\v' };
      if (next === 'u' || next === 'x') {
        // A specifier spelled with escapes is not a plain name: keep it visibly odd so it is refused.
        value += `\\${next}`;
      } else if (next !== '\n') {
        value += escapes[next] ?? next;
      }
      j += 2;
      continue;
    }
    if (source[j] === '\n') break; // unterminated; stop at the line end
    value += source[j];
    j += 1;
  }
  return { value, end: j + 1 };
}

/** Skip a regular expression literal starting at `i` (on the slash); returns the index after its flags. */
function skipRegex(source: string, i: number): number {
  let j = i + 1;
  let inClass = false;
  while (j < source.length && source[j] !== '\n') {
    const c = source[j];
    if (c === '\\') j += 1;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) break;
    j += 1;
  }
  j += 1;
  while (j < source.length && /[a-z]/i.test(source[j])) j += 1;
  return j;
}

/** Split JavaScript source into the tokens the import check needs; template text is dropped. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // One entry per open `${`: the brace depth inside that substitution.
  const templateDepths: number[] = [];
  let i = 0;
  const previous = (): Token | undefined => tokens[tokens.length - 1];
  const readTemplate = (from: number): number => {
    // From inside a template's text to just after its end, or into a `${` substitution.
    let j = from;
    while (j < source.length) {
      if (source[j] === '\\') j += 2;
      else if (source[j] === '`') return j + 1;
      else if (source[j] === '$' && source[j + 1] === '{') {
        templateDepths.push(0);
        return j + 2;
      } else j += 1;
    }
    return j;
  };
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? source.length : close + 2;
    } else if (c === '"' || c === "'") {
      const { value, end } = readString(source, i);
      tokens.push({ type: 'string', value, start: i, end });
      i = end;
    } else if (c === '`') {
      const end = readTemplate(i + 1);
      tokens.push({ type: 'other', value: '`', start: i, end });
      i = end;
    } else if (c === '/') {
      if (slashStartsRegex(previous())) {
        const end = skipRegex(source, i);
        tokens.push({ type: 'other', value: '/re/', start: i, end });
        i = end;
      } else {
        tokens.push({ type: 'punct', value: '/', start: i, end: i + 1 });
        i += 1;
      }
    } else if (/[A-Za-z_$\u0080-\uffff]/.test(c) || c === '\\') {
      const m = /^(?:[A-Za-z0-9_$\u0080-\uffff]|\\u[0-9a-fA-F{}]+)+/.exec(source.slice(i));
      const text = m ? m[0] : c;
      tokens.push({ type: 'name', value: text, start: i, end: i + text.length });
      i += text.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^[0-9a-zA-Z_.]+/.exec(source.slice(i));
      const text = m ? m[0] : c;
      tokens.push({ type: 'other', value: text, start: i, end: i + text.length });
      i += text.length;
    } else if (c === '{' || c === '}') {
      if (templateDepths.length > 0) {
        const top = templateDepths.length - 1;
        if (c === '{') templateDepths[top] += 1;
        else if (templateDepths[top] === 0) {
          // The end of a `${…}` substitution: back into the template's text.
          templateDepths.pop();
          const end = readTemplate(i + 1);
          tokens.push({ type: 'other', value: '`', start: i, end });
          i = end;
          continue;
        } else templateDepths[top] -= 1;
      }
      tokens.push({ type: 'punct', value: c, start: i, end: i + 1 });
      i += 1;
    } else {
      tokens.push({ type: 'punct', value: c, start: i, end: i + 1 });
      i += 1;
    }
  }
  return tokens;
}

/** True when a plugin may import `specifier`. */
export function isAllowedImport(specifier: string): boolean {
  if (specifier === PLUGIN_API_SPECIFIER) return true;
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  return ALLOWED_BUILTINS.includes(name);
}

/** Find every import of a plugin module's source and say what is not allowed. */
export function scanImports(source: string): ImportScan {
  const tokens = tokenize(source);
  const imports: FoundImport[] = [];
  const problems: string[] = [];
  const take = (t: Token | undefined): void => {
    if (t?.type === 'string') imports.push({ specifier: t.value, start: t.start, end: t.end });
  };
  const fromClause = (k: number): number => {
    // Walk to the `from` ending an import/export clause, stopping at a statement end.
    let j = k;
    while (j < tokens.length && !(tokens[j].type === 'name' && tokens[j].value === 'from') && tokens[j].value !== ';') j += 1;
    if (tokens[j]?.value === 'from') take(tokens[j + 1]);
    return j;
  };
  for (let k = 0; k < tokens.length; k += 1) {
    const t = tokens[k];
    if (t.type !== 'name') continue;
    const before = tokens[k - 1];
    const next = tokens[k + 1];
    const isMember = before?.type === 'punct' && before.value === '.' && tokens[k - 2]?.value !== '.';
    if (t.value === 'import' && !isMember) {
      if (next?.value === '.') continue; // import.meta
      if (next?.value === '(') {
        const arg = tokens[k + 2];
        const after = tokens[k + 3];
        if (arg?.type === 'string' && (after?.value === ')' || after?.value === ',')) take(arg);
        else problems.push('it imports a module whose name is computed at run time');
        continue;
      }
      if (next?.type === 'string') take(next);
      else fromClause(k + 1);
    } else if (t.value === 'export' && !isMember && (next?.value === '*' || next?.value === '{')) {
      let j = k + 1;
      if (next.value === '{') while (j < tokens.length && tokens[j].value !== '}') j += 1;
      if (tokens[j + 1]?.value === 'from' || next.value === '*') fromClause(j);
    } else if (t.value === 'require' && next?.value === '(' && !isMember) {
      problems.push('it calls require(), and a plugin is one ES module that imports only quire/plugin-api');
    } else if (t.value === 'getBuiltinModule' || t.value === 'createRequire') {
      problems.push(`it uses ${t.value}, which reaches modules outside what a plugin may import`);
    } else if (['process', 'globalThis', 'global'].includes(t.value) && !isMember && next?.value === '[') {
      problems.push(`it reaches into ${t.value} by a computed name, which hides what it uses`);
    } else if ((['eval', 'Function'].includes(t.value) && !isMember && next?.value === '(') || (t.value === 'constructor' && isMember && next?.value === '(')) {
      problems.push('it builds code from text at run time (eval or Function), which hides what it runs');
    } else if (t.value.includes('\\')) {
      problems.push('it spells a name with escape sequences, which hides what it uses');
    }
  }
  for (const found of imports) {
    if (!isAllowedImport(found.specifier)) {
      problems.push(`it imports "${found.specifier}", and a plugin may import only ${PLUGIN_API_SPECIFIER} and harmless Node built-ins`);
    }
  }
  return { imports, problems: [...new Set(problems)] };
}

/**
 * The source with every `quire/plugin-api` specifier replaced by `apiUrl` (the host's API module
 * as a `file:` URL), so the module can be loaded from a `data:` URL, where a bare name other than
 * a Node built-in cannot resolve at all.
 */
export function rewriteApiImports(source: string, imports: readonly FoundImport[], apiUrl: string): string {
  let out = '';
  let at = 0;
  for (const found of [...imports].sort((a, b) => a.start - b.start)) {
    if (found.specifier !== PLUGIN_API_SPECIFIER) continue;
    out += source.slice(at, found.start) + JSON.stringify(apiUrl);
    at = found.end;
  }
  return out + source.slice(at);
}
