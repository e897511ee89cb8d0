/**
 * Errors that mean "storage cannot take this request right now" rather than "this request is wrong": another
 * process holds the lock, the disk is full, the database went read-only or away, a statement ran out of time.
 * The answer is then 503 with Retry-After, never a 500, and the throttles fail closed (see plugins/errors.ts).
 * Both engines are covered: SQLite's result codes (better-sqlite3) and PostgreSQL's (pg): SQLSTATE codes, the
 * socket errors of a server that is gone, and pg's own timeouts.
 */

/** SQLite result codes (the extended ones start with these), with the reason the readiness check gives. */
const SQLITE_PROBLEMS: [RegExp, string][] = [
  // PROTOCOL: a WAL lock race between processes, as transient as BUSY.
  [/^SQLITE_(BUSY|LOCKED|PROTOCOL)/, 'another process holds its write lock'],
  [/^SQLITE_FULL/, 'the disk is full'],
  [/^SQLITE_(READONLY|CANTOPEN)/, 'the database or its folder is read-only'],
  [/^SQLITE_IOERR/, 'a disk I/O error happened'],
  [/^SQLITE_NOMEM/, 'the server is out of memory'],
];

/** PostgreSQL SQLSTATE codes (exact, or a class: two characters), with their reason. */
const POSTGRES_PROBLEMS: [RegExp, string][] = [
  [/^08/, 'the connection to the database failed'],
  [/^53100$/, 'the disk is full'],
  [/^53300$/, 'the database has no free connection'],
  [/^53/, 'the database is out of resources'],
  [/^57P0[12]$/, 'the database is shutting down'],
  [/^57P03$/, 'the database is starting up or shutting down'],
  [/^57014$/, 'a statement ran out of time (statement_timeout)'],
  [/^55P03$/, 'a lock was not granted in time'],
  [/^40001$/, 'a concurrent transaction conflicted with this one'],
  [/^40P01$/, 'transactions deadlocked'],
  [/^25006$/, 'the database is read-only'],
  [/^58030$/, 'a disk I/O error happened'],
];

/** Socket errors of a database server that is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * pg's own errors carry no code, only these messages (pg 8.x): a connection closed under a query, the pool's or
 * the client's connect timeout, the client-side query timeout, a client whose connection already failed.
 */
const PG_MESSAGES: [RegExp, string][] = [
  [/^timeout exceeded when trying to connect$/, 'no database connection was free in time'],
  [/^Connection terminated due to connection timeout$/, 'the database did not answer in time'],
  [/^Query read timeout$/, 'the database did not answer in time'],
  [/^Connection terminated( unexpectedly)?$/, 'the connection to the database was lost'],
  [
    /^Client has encountered a connection error and is not queryable$/,
    'the connection to the database was lost',
  ],
];

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Why the storage is unavailable, in words for a readiness answer or a log line, when `error` means so; undefined
 * for any other error (a constraint violation, a bug: those stay what they are).
 */
export function storageUnavailableReason(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const code = codeOf(error);
  if (code !== undefined) {
    if (code.startsWith('SQLITE_')) return SQLITE_PROBLEMS.find(([pattern]) => pattern.test(code))?.[1];
    if (NETWORK_CODES.has(code)) return `the database cannot be reached (${code})`;
    // A SQLSTATE: five digits or capitals; every class listed starts with a digit (Node's codes never do).
    if (/^[0-9][0-9A-Z]{4}$/.test(code)) {
      const reason = POSTGRES_PROBLEMS.find(([pattern]) => pattern.test(code))?.[1];
      if (reason) return reason;
    }
  }
  if (error instanceof Error) {
    const reason = PG_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
    if (reason) return reason;
  }
  // Node's connect to a name with several addresses fails with an AggregateError of each attempt; pg wraps the
  // socket error of a timed-out connect in `cause`.
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const reason = storageUnavailableReason(inner, depth + 1);
      if (reason) return reason;
    }
  }
  if (error instanceof Error && error.cause !== undefined)
    return storageUnavailableReason(error.cause, depth + 1);
  return undefined;
}

/** The same test as a guard: the error means the storage is unavailable (see storageUnavailableReason). */
export function isStorageUnavailableError(error: unknown): error is Error {
  return storageUnavailableReason(error) !== undefined;
}
