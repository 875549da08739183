/**
 * What a check or a send reports. `message` is one sentence for the user; `detail` is for the
 * log: status codes, exception names and the server's own words go there, never into `message`.
 */

/**
 * Why a check or a send failed, as the user sees it:
 *
 * | kind | shown as | meaning |
 * |---|---|---|
 * | `NETWORK` | Cannot connect | the target could not be reached at all |
 * | `AUTH` | Wrong credentials | reached; credentials rejected |
 * | `PERMISSION` | Not allowed | signed in; not permitted to do this |
 * | `SERVER` | Server problem | reached; the server reported a problem |
 * | `CONFIG` | Missing setting | a setting is wrong, detected before any I/O |
 * | `UNKNOWN` | Failed | the cause cannot be told (a real kind, not a gap) |
 *
 * @since API 1
 */
export type CheckKind = 'NETWORK' | 'AUTH' | 'PERMISSION' | 'SERVER' | 'CONFIG' | 'UNKNOWN';

/** The six failure kinds, in the order the spec lists them. @since API 1 */
export const CHECK_KINDS: readonly CheckKind[] = ['NETWORK', 'AUTH', 'PERMISSION', 'SERVER', 'CONFIG', 'UNKNOWN'];

/** The short label each kind is shown as ("Cannot connect", …). @since API 1 */
export const CHECK_KIND_LABELS: Readonly<Record<CheckKind, string>> = {
  NETWORK: 'Cannot connect',
  AUTH: 'Wrong credentials',
  PERMISSION: 'Not allowed',
  SERVER: 'Server problem',
  CONFIG: 'Missing setting',
  UNKNOWN: 'Failed',
};

/**
 * The answer of {@link Destination.check}: does the configuration work, proven without sending a
 * document.
 *
 * @since API 1
 */
export interface CheckResult {
  /** True when the destination is reachable and the credentials and permissions are right. */
  readonly ok: boolean;
  /** Why it failed; `null` when `ok`. */
  readonly kind: CheckKind | null;
  /** One sentence for the user. */
  readonly message: string;
  /** For the log: status code, exception type, the server's own words. */
  readonly detail: string;
}

/**
 * Builders for {@link CheckResult} and the kind constants (`CheckResult.NETWORK`, …), so plugin
 * code reads like the spec: `return CheckResult.failed(CheckResult.AUTH, 'The password was refused.', 'HTTP 401')`.
 *
 * @since API 1
 */
export const CheckResult = {
  /** The target could not be reached at all. */
  NETWORK: 'NETWORK',
  /** Reached; credentials rejected. */
  AUTH: 'AUTH',
  /** Signed in; not permitted to do this. */
  PERMISSION: 'PERMISSION',
  /** Reached; the server reported a problem. */
  SERVER: 'SERVER',
  /** A setting is wrong, detected before any I/O. */
  CONFIG: 'CONFIG',
  /** The cause cannot be told. */
  UNKNOWN: 'UNKNOWN',
  /** The configuration works. */
  passed(message: string, detail = ''): CheckResult {
    return Object.freeze({ ok: true, kind: null, message, detail });
  },
  /** The configuration does not work, for the reason `kind`. */
  failed(kind: CheckKind, message: string, detail = ''): CheckResult {
    return Object.freeze({ ok: false, kind, message, detail });
  },
} as const;

/**
 * The answer of {@link Destination.send} for one file.
 *
 * `ok` is true with `alreadyThere` true when the destination already had the document: that is
 * a success, not an error.
 *
 * @since API 1
 */
export interface SendResult {
  /** True when the destination took the file, or already had it. */
  readonly ok: boolean;
  /** True when the destination already had this document (it was not added twice). */
  readonly alreadyThere: boolean;
  /** One sentence for the user. */
  readonly message: string;
  /** For the log: status code, exception type, the server's own words, the new record's id. */
  readonly detail: string;
  /** Why it failed; `null` when `ok`. */
  readonly kind: CheckKind | null;
}

/**
 * Builders for {@link SendResult}.
 *
 * @since API 1
 */
export const SendResult = {
  /** The destination took the file. */
  sent(message: string, detail = ''): SendResult {
    return Object.freeze({ ok: true, alreadyThere: false, message, detail, kind: null });
  },
  /** The destination already had the document; reported as success. */
  alreadyThere(message: string, detail = ''): SendResult {
    return Object.freeze({ ok: true, alreadyThere: true, message, detail, kind: null });
  },
  /** The send failed, for the reason `kind`. */
  failed(kind: CheckKind, message: string, detail = ''): SendResult {
    return Object.freeze({ ok: false, alreadyThere: false, message, detail, kind });
  },
} as const;

/** True when `value` names one of the six kinds. @since API 1 */
export function isCheckKind(value: unknown): value is CheckKind {
  return typeof value === 'string' && (CHECK_KINDS as readonly string[]).includes(value);
}
