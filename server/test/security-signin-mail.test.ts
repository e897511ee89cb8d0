import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { checkTotp, timeStepOf, totpCodeAt } from '../src/crypto/totp.js';
import { startApp, tempDir, appForBlock } from './helpers.js';
import {
  call,
  enrolAuthenticator,
  enrolEmail,
  formAction,
  lastCodeFor,
  newUser,
  signInSession,
  startClockedApp,
  totp,
} from './security-helpers.js';

describe('sign-in with a second factor', () => {
  const t = appForBlock(() => startClockedApp());

  it('asks accounts with an active factor for a verification code after the password', async () => {
    const account = await newUser(t.app);
    const secret = await enrolAuthenticator(t, await signInSession(t.app, account));
    const pages: string[] = [];
    const session = await signInSession(t.app, account, (page) => {
      pages.push(page.body);
      // First a wrong code, then the right one.
      return { code: pages.length === 1 ? '000000' : totp(secret, t.clock.now) };
    });
    expect(session.token).toBeTruthy();
    expect(pages[0]).toContain('<label for="code">Verification code</label>');
    expect(pages[0]).toContain('Enter the 6-digit code from your authenticator app.');
    expect(pages[0]).not.toContain('Send code by email');
    expect(pages[1]).toContain('role="alert">That verification code is not correct.');
  });

  it('sends an email code on request, and accepts it', async () => {
    const account = await newUser(t.app);
    await enrolEmail(t, await signInSession(t.app, account));
    let sent = false;
    let notice = '';
    const session = await signInSession(t.app, account, async (page) => {
      expect(page.body).toContain('Send code by email');
      if (!sent) {
        sent = true;
        return { action: 'send-email', code: '' };
      }
      notice = /role="status"[^>]*>([^<]+)</.exec(page.body)?.[1] ?? '';
      return { action: 'verify', code: await lastCodeFor(t.app, account.user.email) };
    });
    expect(notice).toMatch(/^We sent a code to .\.\.\.\..@example\.org\. It is valid for 10 minutes\.$/);
    expect(session.sid).toBeTruthy();
  });

  it('shares the wrong-code throttle with the API', async () => {
    const account = await newUser(t.app);
    const api = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, api);
    for (let i = 0; i < 5; i += 1) {
      await call(t.app, 'POST', `/api/stepup/${account.user.id}/google-auth/verify`, {
        token: api.token,
        body: { passCode: '000000' },
      });
    }
    let message = '';
    await expect(
      signInSession(t.app, account, (page) => {
        if (page.statusCode === 429) {
          message = /role="alert">([^<]+)</.exec(page.body)?.[1] ?? '';
          throw new Error('throttled');
        }
        return { code: totp(secret, t.clock.now) };
      }),
    ).rejects.toThrow('throttled');
    expect(message).toMatch(/^Too many wrong codes/);
  });

  it('the sign-in form has an accessible code field and a Verify button first', async () => {
    const account = await newUser(t.app);
    const secret = await enrolAuthenticator(t, await signInSession(t.app, account));
    await signInSession(t.app, account, (page) => {
      expect(page.headers['cache-control']).toBe('no-store');
      const html = page.body;
      expect(html).toMatch(/<input id="code" name="code"[^>]*autocomplete="one-time-code"/);
      expect(html.indexOf('value="verify"')).toBeGreaterThan(0);
      expect(formAction(html)).toMatch(/\/verification-code$/);
      return { code: totp(secret, t.clock.now) };
    });
  });
});

describe('mailbox (embedded default)', () => {
  it('lists messages newest first as JSON with to, subject, text and date, and as an HTML page', async () => {
    const t = await startClockedApp();
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    await call(t.app, 'POST', `/api/multifactor/email/${account.user.id}/enroll`, {
      token: session.token,
      body: {},
    });
    t.clock.advance(31_000);
    await call(t.app, 'POST', `/api/multifactor/email/${account.user.id}/enroll`, {
      token: session.token,
      body: {},
    });
    const response = await t.app.inject('/dev/mailbox/messages');
    expect(response.statusCode).toBe(200);
    const messages = response.json<{ to: string; subject: string; text: string; date: string }[]>();
    expect(messages).toHaveLength(2);
    expect(Object.keys(messages[0]!).sort()).toEqual(['date', 'subject', 'text', 'to']);
    expect(messages[0]!.to).toBe(account.user.email);
    expect(messages[0]!.subject).toBe('Confirm your email for 2-step verification');
    expect(new Date(messages[0]!.date).getTime()).toBeGreaterThan(new Date(messages[1]!.date).getTime());
    const page = await t.app.inject('/dev/mailbox');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<h1>Mailbox</h1>');
    expect(page.body).toContain(account.user.email);
    await t.close();
  });

  it('does not exist in Okta mode', async () => {
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    const settings = `${dir}/settings.json`;
    writeFileSync(
      settings,
      JSON.stringify({
        Domain: 'https://example.okta.com',
        ClientId: 'x',
        HeaderLinks: {},
        FooterLinks: { sections: {}, policies: {} },
      }),
    );
    // The okta backend's credentials are checked at start-up; this app never calls the org.
    const t = await startApp({ SETTINGS_FILE: settings, OKTA_API_TOKEN: 'test-token' }, dir);
    expect((await t.app.inject('/dev/mailbox/messages')).statusCode).toBe(404);
    expect(t.app.mailer.transport).toBe('none');
    await t.close();
  });
});

describe('SMTP transport (SMTP_URL)', () => {
  it('sends the code through a real SMTP server, and has no mailbox', async () => {
    const received: { to: string[]; raw: string }[] = [];
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const { port } = smtp.server.address() as AddressInfo;
    const t = await startClockedApp({
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Portal <portal@example.org>',
    });
    try {
      expect(t.app.mailer.transport).toBe('smtp');
      expect((await t.app.inject('/dev/mailbox/messages')).statusCode).toBe(404);
      const account = await newUser(t.app);
      const session = await signInSession(t.app, account);
      const sent = await call(t.app, 'POST', `/api/multifactor/email/${account.user.id}/enroll`, {
        token: session.token,
        body: {},
      });
      expect(sent.status).toBe(200);
      expect(received).toHaveLength(1);
      expect(received[0]!.to).toEqual([account.user.email]);
      expect(received[0]!.raw).toMatch(/^From: Portal <portal@example\.org>/m);
      const code = /Your verification code is (\d{6})/.exec(received[0]!.raw)?.[1];
      expect(code).toMatch(/^\d{6}$/);
      const activated = await call(t.app, 'POST', `/api/multifactor/email/${account.user.id}/activate`, {
        token: session.token,
        body: { code },
      });
      expect(activated.data.status).toBe('ACTIVE');
    } finally {
      await t.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('answers 502 with a clear text when the SMTP server is down, and does not count the send', async () => {
    const t = await startClockedApp({ SMTP_URL: 'smtp://127.0.0.1:1' });
    try {
      const account = await newUser(t.app);
      const session = await signInSession(t.app, account);
      const url = `/api/multifactor/email/${account.user.id}/enroll`;
      const failed = await call(t.app, 'POST', url, { token: session.token, body: {} });
      expect(failed.status).toBe(502);
      expect(failed.data.error).toBe('The verification email could not be sent. Try again in a moment.');
      // Not throttled by the failed send.
      expect((await call(t.app, 'POST', url, { token: session.token, body: {} })).status).toBe(502);
    } finally {
      await t.close();
    }
  });
});

describe('configuration', () => {
  const base = () => ({ DATA_DIR: tempDir() });

  it('takes TOTP_ENCRYPTION_KEY as 64 hex characters or base64 of 32 bytes', () => {
    const hex = 'ab'.repeat(32);
    expect(loadConfig({ ...base(), TOTP_ENCRYPTION_KEY: hex }).TOTP_ENCRYPTION_KEY).toEqual(
      Buffer.from(hex, 'hex'),
    );
    const b64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ ...base(), TOTP_ENCRYPTION_KEY: b64 }).TOTP_ENCRYPTION_KEY).toEqual(
      Buffer.alloc(32, 7),
    );
  });

  it('refuses a malformed TOTP_ENCRYPTION_KEY naming it, without echoing the value', () => {
    const attempt = () => loadConfig({ ...base(), TOTP_ENCRYPTION_KEY: 'too-short-secret' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/TOTP_ENCRYPTION_KEY=\(hidden\): must be 32 random bytes/);
    expect(attempt).not.toThrow(/too-short-secret/);
  });

  it('refuses an SMTP_URL that is not smtp:// or smtps://', () => {
    expect(() => loadConfig({ ...base(), SMTP_URL: 'http://mail.example.org' })).toThrow(
      /SMTP_URL=\(hidden\)/,
    );
  });

  it('uses the configured key: secrets sealed with another key do not open', async () => {
    const t = await startClockedApp({ TOTP_ENCRYPTION_KEY: 'cd'.repeat(32) });
    const account = await newUser(t.app);
    const s = await signInSession(t.app, account);
    await enrolAuthenticator(t, s);
    const { secret_enc } = (await t.app.storage.sql.get<{ secret_enc: string }>(
      'SELECT secret_enc FROM user_factors WHERE user_id = ?',
      [account.user.id],
    ))!;
    expect(new SecretBox(Buffer.from('cd'.repeat(32), 'hex')).open(secret_enc, account.user.id)).toMatch(
      /^[A-Z2-7]+$/,
    );
    expect(() => new SecretBox(Buffer.alloc(32, 1)).open(secret_enc, account.user.id)).toThrow();
    await t.close();
  });
});

describe('TOTP and secret box units', () => {
  it('checkTotp follows RFC 6238 (SHA-1 test vector) with a ±1 step window and refuses replays', () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s → 94287082 (8 digits); 6 digits → 287082.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpCodeAt(secret, 59_000)).toBe('287082');
    const now = 1_111_111_109_000;
    expect(totpCodeAt(secret, now)).toBe('081804');
    expect(checkTotp(secret, '081804', now, null)).toEqual({ ok: true, step: timeStepOf(now) });
    expect(checkTotp(secret, '081804', now + 30_000, null)).toEqual({ ok: true, step: timeStepOf(now) });
    expect(checkTotp(secret, '081804', now + 60_000, null)).toEqual({ ok: false, reason: 'invalid' });
    expect(checkTotp(secret, '081804', now, timeStepOf(now))).toEqual({ ok: false, reason: 'replay' });
    expect(checkTotp(secret, '81804', now, null)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('SecretBox refuses tampering and another context', () => {
    const box = new SecretBox(Buffer.alloc(32, 9));
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(box.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box.open(sealed, 'user-2')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('XXXXXXXXXXXXXXXX').toString('base64url');
    expect(() => box.open(parts.join('.'), 'user-1')).toThrow();
    expect(box.seal('same', 'u')).not.toBe(box.seal('same', 'u'));
  });
});
