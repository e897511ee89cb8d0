/**
 * SQLite result codes that mean "storage cannot take this write (or read) right now": another process holds
 * the lock, the disk is full, the folder became read-only, or I/O failed. The answer is then 503 with
 * Retry-After, never a 500, and the throttles fail closed (see plugins/errors.ts).
 */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOMEM)/;

export function isStorageUnavailableError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}
