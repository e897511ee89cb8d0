import { once } from 'node:events';
import { type AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { startPortal } from '../support/portal-process.js';
import { createUser } from '../support/users.js';
import { signInOnProvider } from '../support/sign-in.js';
import { emailSection, emailSwitch, logout, waitForResendWindow } from './security-helpers.js';

interface Received {
  to: string[];
  raw: string;
  date: string;
}

/** A real SMTP server on an ephemeral loopback port, keeping what it receives. */
async function startSmtp() {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          date: new Date().toISOString(),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return { received, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function codeOf(message: Received | undefined): string {
  const code = message && /Your verification code is (\d{6})/.exec(message.raw)?.[1];
  if (!code) throw new Error('No code in the message');
  return code;
}

test.describe.configure({ timeout: 150_000 });

test('with SMTP_URL, codes and notices travel through a real SMTP server: email enrolment and sign-in', async ({
  page,
}) => {
  const smtp = await startSmtp();
  const portal = await startPortal({
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'My Profile <no-reply@example.org>',
  });
  try {
    // An account in this server's own directory.
    const user = await createUser({ dataDir: portal.dataDir });
    // No built-in mailbox when SMTP is configured.
    expect((await fetch(`${portal.origin}/dev/mailbox/messages`)).status).toBe(404);

    await page.goto(`${portal.origin}/security`);
    await signInOnProvider(page, user);
    await expect(page).toHaveURL(`${portal.origin}/security`);
    await expect(emailSwitch(page)).toBeEnabled();
    await emailSwitch(page).click();
    await emailSection(page).getByRole('button', { name: 'Send Code' }).click();
    await expect.poll(() => smtp.received.length).toBe(1);
    const enrolment = smtp.received[0]!;
    expect(enrolment.to).toEqual([user.email]);
    expect(enrolment.raw).toMatch(/^From: My Profile <no-reply@example\.org>/m);
    expect(enrolment.raw).toMatch(/^Subject: Confirm your email for 2-step verification/m);
    await emailSection(page).getByLabel('Verification code').fill(codeOf(enrolment));
    await emailSection(page).getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
    // The holder is told 2-step is on, through the same SMTP server.
    await expect.poll(() => smtp.received.length).toBe(2);
    expect(smtp.received[1]!.to).toEqual([user.email]);
    expect(smtp.received[1]!.raw).toMatch(/^Subject: Email verification is now on for your F5 account/m);

    await logout(page, user.name);
    await page.goto(`${portal.origin}/profile`);
    await signInOnProvider(page, user);
    await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
    await waitForResendWindow(enrolment);
    await page.getByRole('button', { name: 'Send code by email' }).click();
    await expect(page.getByRole('status')).toContainText('We sent a code to');
    await expect.poll(() => smtp.received.length).toBe(3);
    expect(smtp.received[2]!.raw).toMatch(/^Subject: Your verification code/m);
    await page.getByLabel('Verification code').fill(codeOf(smtp.received[2]));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(`${portal.origin}/profile`);
    await expect(page.getByRole('table')).toContainText(user.email);
  } finally {
    await portal.stop();
    await smtp.close();
  }
});
