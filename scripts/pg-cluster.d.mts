export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, no password, trusted on loopback. */
  url: string;
  port: number;
  dir: string;
  stop(): void;
}

export function postgresBin(): string | null;
export function startPgCluster(): Promise<PgCluster>;
