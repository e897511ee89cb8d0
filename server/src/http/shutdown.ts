import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting, let in-flight requests finish, and past `deadlineMs` cut
 * the remaining connections (a client trickling a body, a browser's idle preconnect) and exit anyway, so a
 * rolling deploy or a test never waits on a client. Exit code 1 when connections had to be cut; a second signal
 * exits at once.
 */
export function stopOnSignals(app: FastifyInstance, deadlineMs: number): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal, deadlineMs }, 'shutting down');
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      app.log.warn('shutdown deadline passed: closing the remaining connections');
      app.server.closeAllConnections();
      // The connections are gone; give the close hooks (the database) a moment, then leave regardless.
      setTimeout(() => process.exit(1), 1000).unref();
    }, deadlineMs);
    app.close().then(
      () => {
        clearTimeout(deadline);
        process.exit(forced ? 1 : 0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
