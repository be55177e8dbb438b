import type { Logger } from '../log/logger.js';
import type { AuditEntry, AuditLog } from '../ports/audit-port.js';

/**
 * Writes one record to the durable audit trail, beside the audit log line its caller writes. A failed write is
 * logged and swallowed: the person already got their answer and the action itself has been done (or refused), and
 * the log line still holds the record.
 */
export async function recordAudit(audit: AuditLog, logger: Logger, entry: AuditEntry): Promise<void> {
  try {
    await audit.record(entry);
  } catch (error) {
    logger.error({ err: error, audit: entry.action, cluster: entry.cluster, user: entry.user }, 'could not write the audit record to Redis; the log line is the record');
  }
}
