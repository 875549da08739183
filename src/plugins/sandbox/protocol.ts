/**
 * The messages between the host and a sandboxed plugin process (Node IPC, JSON). One run per
 * process: the host sends one `run`, the child answers with `log` lines and one final answer,
 * then exits.
 */
import type { BookMeta, CheckResult, Field, FieldValue, SecretStoreKind, SendResult } from '../../plugin-api/index.js';

/** What to do: read the destination's description, check its configuration, or send one file. */
export type SandboxOperation = 'describe' | 'check' | 'send';

/** Host → child: the only message the child receives. */
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
