import type { AppConfig } from './config/index.js';
import { DEMO_ACCOUNTS } from './directory/seed.js';

/**
 * What server.ts prints once it listens. The demo passwords appear only in the development default: anywhere
 * else the accounts (if opted in) are named without their passwords, which are in the README.
 */
export function startupBanner(config: AppConfig, existingDemo: readonly { email: string }[]): string {
  const lines = [
    '',
    `  My Profile portal: ${config.PUBLIC_URL}`,
    config.embedded
      ? `  Identity provider: embedded, issuer ${config.issuer}`
      : `  Identity provider: Okta org, issuer ${config.issuer}`,
  ];
  if (config.demoAccounts && existingDemo.length > 0) {
    lines.push(config.developmentDefault ? '  Demo accounts:' : '  Demo accounts (passwords in the README):');
    for (const account of DEMO_ACCOUNTS) {
      if (!existingDemo.some(({ email }) => email === account.email)) continue;
      lines.push(
        config.developmentDefault
          ? `    ${account.email} / ${account.password}  (${account.description})`
          : `    ${account.email}  (${account.description})`,
      );
    }
  }
  if (config.devMailbox) lines.push(`  Mailbox: ${config.PUBLIC_URL}/dev/mailbox`);
  return `${lines.join('\n')}\n\n`;
}
