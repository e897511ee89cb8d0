import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config/index.js';
import { DEMO_ACCOUNTS } from './directory/seed.js';

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

  const app = await buildApp(config);
  await app.listen({ port: config.PORT, host: config.HOST });

  const lines = [
    '',
    `  My Profile portal: ${config.PUBLIC_URL}`,
    config.embedded
      ? `  Identity provider: embedded, issuer ${config.issuer}`
      : `  Identity provider: Okta org, issuer ${config.issuer}`,
  ];
  if (config.embedded) {
    lines.push('  Demo accounts:');
    for (const account of DEMO_ACCOUNTS) {
      lines.push(`    ${account.email} / ${account.password}  (${account.description})`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'shutting down');
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
