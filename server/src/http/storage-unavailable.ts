/**
 * The answer when the database cannot take a write right now (another process holds the lock, disk full,
 * read-only, I/O error, PostgreSQL gone or timing out: db/errors.ts): the same for every request, so it says
 * nothing about what was asked or guessed. The error handler (plugins/errors.ts) and the provider's edge send it.
 */
export const STORAGE_UNAVAILABLE_MESSAGE =
  'The service cannot store data right now (its database is busy or unavailable). Try again in a few seconds.';
export const STORAGE_RETRY_AFTER_SECONDS = 2;
