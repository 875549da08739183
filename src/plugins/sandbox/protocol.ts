/**
 * The messages between the host and a sandboxed plugin process (Node IPC, JSON). One run per
 * process: the host sends one `run`; the child answers with `log` lines, network requests the host
 * makes on its behalf (`net`, answered by `net-reply`), reports of refused calls, and one final
 * answer, then exits. Everything the child sends is checked by the host: it may come from the plugin.
 */
import type {
  BookMeta,
  BridgeHttpReply,
  BridgeHttpRequest,
  BridgeMailRequest,
  CheckKind,
  CheckResult,
  Field,
  FieldValue,
  SecretStoreKind,
  SendResult,
} from '../../plugin-api/index.js';

/** What to do: read the destination's description, check its configuration, or send one file. */
export type SandboxOperation = 'describe' | 'check' | 'send';

/** Host → child: the first message. */
export interface RunMessage {
  type: 'run';
  op: SandboxOperation;
  slug: string;
  /** The plugin module's source, its API import already pointing at the host's API module. */
  source: string;
  /** The plugin's `files/` directory. */
  dataDir: string;
  settings: Record<string, FieldValue>;
  secrets: Record<string, string>;
  secretStore: SecretStoreKind;
  /** For `send`: the staged file and the document's metadata. */
  file?: string;
  meta?: BookMeta;
}

/** A network request the child asks the host to make. */
export type NetRequest = { kind: 'http'; http: BridgeHttpRequest } | { kind: 'mail'; mail: BridgeMailRequest };

/** Why the host's request failed, rebuilt as an error in the child. */
export interface NetError {
  /** `network`: unreachable (HttpNetworkError); `mail`: MailError; `refused`: not a host this plugin may use. */
  name: 'network' | 'mail' | 'refused';
  message: string;
  code: string;
  kind?: CheckKind;
  response?: string;
}

/** Host → child: the answer to one `net` request. */
export type NetReply =
  | {
      type: 'net-reply';
      id: number;
      ok: true;
      http?: BridgeHttpReply;
      mail?: { accepted: string[]; rejected: string[]; response: string; messageId: string } | null;
    }
  | { type: 'net-reply'; id: number; ok: false; error: NetError };

/** Host → child. */
export type HostMessage = RunMessage | NetReply;

/** What a destination says about itself; read in the sandbox, checked again by the host. */
export interface DestinationDescriptor {
  name: string;
  display: string;
  description: string;
  accepts: string[];
  configFields: Field[];
  secretFields: Field[];
}

/** Where in the child's work a failure happened. */
export type FailureStage = 'load' | 'register' | 'construct' | 'run';

/** Child → host. */
export type ChildMessage =
  | { type: 'log'; line: string }
  | { type: 'net'; id: number; request: NetRequest }
  | { type: 'refused'; what: string }
  | { type: 'described'; descriptor: DestinationDescriptor }
  | { type: 'checked'; result: CheckResult }
  | { type: 'sent'; result: SendResult }
  | {
      type: 'failed';
      stage: FailureStage;
      message: string;
      detail: string;
      /** The error was the sandbox refusing an access (`ERR_ACCESS_DENIED` and kin). */
      sandbox: boolean;
    };

/** The child's final answers. */
export type ChildAnswer = Extract<ChildMessage, { type: 'described' | 'checked' | 'sent' | 'failed' }>;
