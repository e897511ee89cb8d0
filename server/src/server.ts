import { buildApp } from './app.js';
import { stopOnSignals } from './http/shutdown.js';
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
  process.stdout.write(
    startupBanner(config, config.demoAccounts ? await existingDemoAccounts(app.directory) : []),
  );
  if (config.secureCookies && config.TRUST_PROXY === false) {
    app.log.warn(
      "PUBLIC_URL is https but TRUST_PROXY is not set: every client has the proxy's address, so the per-address limits count all clients together. Set TRUST_PROXY to the proxy's address or hop count.",
    );
  }

  stopOnSignals(app, config.SHUTDOWN_TIMEOUT_MS);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
