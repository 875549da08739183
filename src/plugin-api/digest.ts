/** HTTP authentication challenges (RFC 9110 §11) and Digest responses (RFC 7616, RFC 2617). */
import { createHash, randomBytes } from 'node:crypto';

/** One challenge of a `WWW-Authenticate` header: a scheme and its parameters (names lower case). */
export interface AuthChallenge {
  /** The scheme, lower case: `digest`, `basic`, … */
  scheme: string;
  /** Its parameters (`realm`, `nonce`, `qop`, …), names lower case, values unquoted. */
  params: Record<string, string>;
}

/**
 * Parse every challenge in the `WWW-Authenticate` header values (a server may send several,
 * in one header or many): `Digest realm="x", nonce="y", qop="auth", Basic realm="x"`.
 */
export function parseChallenges(values: readonly string[]): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  for (const value of values) {
    let i = 0;
    let current: AuthChallenge | undefined;
    const skip = (): void => {
      while (i < value.length && /[\s,]/.test(value[i])) i += 1;
    };
    const token = (): string => {
      const m = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(value.slice(i));
      if (!m) return '';
      i += m[0].length;
      return m[0];
    };
    const quotedString = (): string => {
      let text = '';
      i += 1;
      while (i < value.length && value[i] !== '"') {
        if (value[i] === '\\' && i + 1 < value.length) i += 1;
        text += value[i];
        i += 1;
      }
      i += 1;
      return text;
    };
    const unquoted = (): string => {
      const text = (/^[^,\s]*/.exec(value.slice(i)) ?? [''])[0];
      i += text.length;
      return text;
    };
    while (i < value.length) {
      skip();
      const name = token();
      if (name === '') {
        i += 1; // not a token: skip a stray character rather than loop forever
        continue;
      }
      while (value[i] === ' ') i += 1;
      const rest = value.slice(i);
      if (rest.startsWith('=') && !/^=+\s*(,|$)/.test(rest)) {
        i += 1;
        while (value[i] === ' ') i += 1;
        const param = value[i] === '"' ? quotedString() : unquoted();
        if (current) current.params[name.toLowerCase()] = param;
      } else if (rest.startsWith('=')) {
        // token68 (`Negotiate abc==`): kept whole as the challenge's only parameter
        const padding = (/^=+/.exec(rest) ?? [''])[0];
        i += padding.length;
        if (current) current.params.token68 = name + padding;
      } else {
        current = { scheme: name.toLowerCase(), params: {} };
        challenges.push(current);
      }
    }
  }
  return challenges;
}

const HASHES: Record<string, string> = { md5: 'md5', 'md5-sess': 'md5', 'sha-256': 'sha256', 'sha-256-sess': 'sha256' };

/** True when this Digest challenge uses an algorithm we can answer. */
export function canAnswerDigest(challenge: AuthChallenge): boolean {
  return challenge.scheme === 'digest' && (challenge.params.algorithm ?? 'MD5').toLowerCase() in HASHES && challenge.params.nonce !== undefined;
}

/** Quote a value for an auth-param (escape `\` and `"`). */
function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The `Authorization` value answering a Digest challenge. `uri` must be the request target
 * exactly as sent (path and query), or servers such as calibre answer 400. `nc` counts the
 * requests made with this nonce, from 1.
 */
export function digestAuthorization(
  challenge: AuthChallenge,
  request: { method: string; uri: string; username: string; password: string; nc: number; cnonce?: string },
): string {
  const p = challenge.params;
  const algorithm = p.algorithm ?? 'MD5';
  const hashName = HASHES[algorithm.toLowerCase()];
  if (!hashName) throw new Error(`unsupported Digest algorithm ${algorithm}`);
  const h = (s: string): string => createHash(hashName).update(s, 'utf8').digest('hex');
  const realm = p.realm ?? '';
  const nonce = p.nonce ?? '';
  const cnonce = request.cnonce ?? randomBytes(8).toString('hex');
  let ha1 = h(`${request.username}:${realm}:${request.password}`);
  if (algorithm.toLowerCase().endsWith('-sess')) ha1 = h(`${ha1}:${nonce}:${cnonce}`);
  const ha2 = h(`${request.method}:${request.uri}`);
  const qops = (p.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
  const useQop = qops.includes('auth');
  const nc = request.nc.toString(16).padStart(8, '0');
  const response = useQop ? h(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : h(`${ha1}:${nonce}:${ha2}`);
  const parts = [
    `username=${quoted(request.username)}`,
    `realm=${quoted(realm)}`,
    `nonce=${quoted(nonce)}`,
    `uri=${quoted(request.uri)}`,
    `algorithm=${algorithm}`,
    `response=${quoted(response)}`,
  ];
  if (useQop) parts.push('qop=auth', `nc=${nc}`, `cnonce=${quoted(cnonce)}`);
  if (p.opaque !== undefined) parts.push(`opaque=${quoted(p.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}

/** The `Authorization` value for Basic (UTF-8 credentials, RFC 7617). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
