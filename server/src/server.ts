import { buildApp } from './app.js';
import { startupBanner } from './banner.js';
import { ConfigError, loadConfig } from './config/index.js';
import { existingDemoAccounts } from './directory/seed.js';

// Before anything is created (the imports above create nothing): the database, its -wal/-shm files and the key
// files are private to this user, whatever umask the service manager gave.
process.umask(0o077);

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  let app;
  try {
    app = await buildApp(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  await app.listen({ port: config.PORT, host: config.HOST });
  process.stdout.write(startupBanner(config, config.demoAccounts ? existingDemoAccounts(app.directory) : []));
  if (config.secureCookies && config.TRUST_PROXY === false) {
    app.log.warn(
      "PUBLIC_URL is https but TRUST_PROXY is not set: every client has the proxy's address, so the per-address limits count all clients together. Set TRUST_PROXY to the proxy's address or hop count.",
    );
  }

  // Graceful shutdown: stop accepting, let in-flight requests finish, and past SHUTDOWN_TIMEOUT_MS cut the
  // remaining connections (e.g. a client trickling a body) and exit anyway. A second signal exits at once.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal, deadlineMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutting down');
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      app.log.warn('shutdown deadline passed: closing the remaining connections');
      app.server.closeAllConnections();
      // The connections are gone; give the close hooks (the database) a moment, then leave regardless.
      setTimeout(() => process.exit(1), 1000).unref();
    }, config.SHUTDOWN_TIMEOUT_MS);
    app.close().then(
      () => {
        clearTimeout(deadline);
        // 1 when requests had to be cut: the stop was not clean.
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

main().catch((error: unknown) => {
  process.stderr.write(
    `Cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
