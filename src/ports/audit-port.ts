/**
 * The durable record an auditor asks for: who approved, forced, paused, resumed or aborted what, and every refusal,
 * per cluster. Log lines say the same, but logs rotate and are not queryable per cluster; this is kept for a
 * configured time and read back by `/eks-upgrade audit` and the CLI.
 */
export interface AuditEntry {
  /** When it happened (ms since the epoch, on the bot's clock). */
  at: number;
  cluster: string;
  /** Slack user id of the person who acted. */
  user: string;
  /** What they did: start, gate:continue, gate:force, gate:abort, gate:remedy, pause, resume, abort, … */
  action: string;
  /** allowed / refused, or the engine's verdict (answered, already-answered, stale, …). */
  outcome: string;
  job?: string;
  gate?: string;
  /** A Force reason, a waiver reason: as the user typed it. */
  reason?: string;
  /** The refusal or result sentence, as the user was told it. */
  detail?: string;
  /** Where it came from: the slash command or a button. */
  via: 'command' | 'button' | 'modal';
}

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** The newest entries of one cluster, newest first. */
  read(cluster: string, options?: { limit?: number }): Promise<AuditEntry[]>;
}
