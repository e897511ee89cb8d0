/**
 * Notices to the account holder: the outbox (`app.notifier`) delivers through the mail transport after the
 * change commits, retries failures with backoff, never sends a row twice under concurrent sweeps, and the texts
 * say what happened, when, from which browser and what to do.
 */
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/connection.js';
import type { Mailbox } from '../src/mail/mailbox.js';
import type { Mailer, MailMessage } from '../src/mail/mailer.js';
import { describeBrowser, UNKNOWN_BROWSER } from '../src/notifications/browser.js';
import {
  CLAIM_MS,
  MAX_ATTEMPTS,
  Outbox,
  RETENTION_MS,
  retryDelayMs,
  SqliteOutboxStore,
} from '../src/notifications/outbox.js';
import { composeNotice, formatUtc } from '../src/notifications/texts.js';
import type { AccountEvent } from '../src/notifications/types.js';
import { newUser, startClockedApp, type ClockedApp } from './security-helpers.js';
import { appForBlock } from './helpers.js';

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

interface NotificationRow {
  id: number;
  attempts: number;
  next_attempt_at: number;
  sent_at: number | null;
  last_error: string | null;
}

function rowsOf(t: ClockedApp, userId: string): NotificationRow[] {
  return t.app.db
    .prepare<[string], NotificationRow>(
      'SELECT id, attempts, next_attempt_at, sent_at, last_error FROM notifications WHERE user_id = ? ORDER BY id',
    )
    .all(userId);
}

const mailbox = (t: ClockedApp) => t.app.mailer as Mailbox;
const mailTo = (t: ClockedApp, email: string) =>
  mailbox(t)
    .list(1000)
    .filter((m) => m.to === email);

async function recipient(t: ClockedApp) {
  const { user } = await newUser(t.app);
  return { id: user.id, email: user.email };
}

describe('the outbox', () => {
  const t = appForBlock(() => startClockedApp());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('delivers a queued notice into the development mailbox soon after the commit, and marks it sent', async () => {
    const to = await recipient(t);
    t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now, userAgent: CHROME_LINUX });
    // No sweep is asked for: the kick after queue() delivers it.
    await vi.waitFor(() => expect(mailTo(t, to.email)).toHaveLength(1));
    const [mail] = mailTo(t, to.email);
    expect(mail!.subject).toBe('Your F5 account password was changed');
    expect(mail!.text).toContain('Browser: Chrome on Linux');
    await t.app.notifier.drain();
    const [row] = rowsOf(t, to.id);
    expect(row).toMatchObject({ attempts: 1, sent_at: t.clock.now, last_error: null });
    // Shown by the mailbox's JSON too, as the e2e tests read it.
    const listed = (await t.app.inject('/dev/mailbox/messages')).json<{ to: string; subject: string }[]>();
    expect(listed.filter((m) => m.to === to.email).map((m) => m.subject)).toEqual([mail!.subject]);
  });

  it('sends nothing for a notice queued inside a transaction that rolled back', async () => {
    const to = await recipient(t);
    const change = t.app.db.transaction(() => {
      t.app.notifier.queue(to, { type: 'factor-removed', factor: 'email' }, { at: t.clock.now });
      throw new Error('the change failed');
    });
    expect(() => change()).toThrow('the change failed');
    await t.app.notifier.drain();
    expect(rowsOf(t, to.id)).toEqual([]);
    expect(mailTo(t, to.email)).toEqual([]);
  });

  it('retries a failing transport with growing delays on the app clock, then delivers once', async () => {
    const to = await recipient(t);
    const send = vi
      .spyOn(mailbox(t), 'send')
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockRejectedValueOnce(new Error('connection refused'));
    t.app.notifier.queue(to, { type: 'factor-turned-off', factor: 'googleAuth' }, { at: t.clock.now });
    await t.app.notifier.drain();
    expect(rowsOf(t, to.id)[0]).toMatchObject({
      attempts: 1,
      sent_at: null,
      last_error: 'connection refused',
    });
    expect(rowsOf(t, to.id)[0]!.next_attempt_at).toBe(t.clock.now + retryDelayMs(1));

    // Not before its time.
    t.clock.advance(retryDelayMs(1) - 1);
    await t.app.notifier.drain();
    expect(rowsOf(t, to.id)[0]!.attempts).toBe(1);
    t.clock.advance(1);
    await t.app.notifier.drain();
    expect(rowsOf(t, to.id)[0]).toMatchObject({ attempts: 2, sent_at: null });
    expect(retryDelayMs(2)).toBeGreaterThan(retryDelayMs(1));
    t.clock.advance(retryDelayMs(2));
    await t.app.notifier.drain();

    expect(rowsOf(t, to.id)[0]).toMatchObject({ attempts: 3, sent_at: t.clock.now, last_error: null });
    expect(mailTo(t, to.email).map((m) => m.subject)).toEqual([
      'Google Authenticator was turned off for your F5 account',
    ]);
    expect(send.mock.calls.filter(([message]) => message.to === to.email)).toHaveLength(3);
  });

  it('gives a notice up after MAX_ATTEMPTS failed sends, and prunes it after the retention time', async () => {
    const to = await recipient(t);
    const send = vi.spyOn(mailbox(t), 'send').mockRejectedValue(new Error('mailbox full'));
    t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    for (let round = 0; round < MAX_ATTEMPTS + 3; round += 1) {
      await t.app.notifier.drain();
      t.clock.advance(retryDelayMs(MAX_ATTEMPTS));
    }
    expect(send.mock.calls.filter(([message]) => message.to === to.email)).toHaveLength(MAX_ATTEMPTS);
    expect(rowsOf(t, to.id)[0]).toMatchObject({ attempts: MAX_ATTEMPTS, sent_at: null });
    t.clock.advance(RETENTION_MS);
    t.app.notifier.prune();
    expect(rowsOf(t, to.id)).toEqual([]);
  });

  it('prunes sent notices after the retention time, not before', async () => {
    const to = await recipient(t);
    t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    await t.app.notifier.drain();
    t.clock.advance(RETENTION_MS - 1);
    t.app.notifier.prune();
    expect(rowsOf(t, to.id)).toHaveLength(1);
    t.clock.advance(2);
    t.app.notifier.prune();
    expect(rowsOf(t, to.id)).toEqual([]);
  });
});

describe('several senders', () => {
  const t = appForBlock(() => startClockedApp());

  /** A transport that takes its time (so sweeps overlap) and records what it was given. */
  function slowMailer(sent: MailMessage[]): Mailer {
    return {
      transport: 'smtp',
      async send(message) {
        await new Promise((resolve) => setImmediate(resolve));
        sent.push(message);
      },
      async close() {},
    };
  }

  it('sends each notice once when sweeps run at once in this instance and in another one', async () => {
    const to = await recipient(t);
    // Another instance: its own connection to the same database file, its own transport.
    const otherDb = openDatabase(t.dataDir);
    const otherSent: MailMessage[] = [];
    const other = new Outbox({
      store: new SqliteOutboxStore(otherDb),
      mailer: slowMailer(otherSent),
      now: () => t.clock.now,
      log: t.app.log,
      portalUrl: t.config.PUBLIC_URL,
    });
    try {
      const count = 45;
      t.app.db.transaction(() => {
        for (let i = 0; i < count; i += 1) {
          t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now + i });
        }
      })();
      await Promise.all([
        t.app.notifier.deliverDue(),
        other.deliverDue(),
        t.app.notifier.deliverDue(),
        other.deliverDue(),
      ]);
      await t.app.notifier.drain();
      const here = mailTo(t, to.email);
      const there = otherSent.filter((m) => m.to === to.email);
      expect(here.length + there.length).toBe(count);
      // Both instances took part, and no notice went out twice.
      expect(there.length).toBeGreaterThan(0);
      expect(rowsOf(t, to.id).every((row) => row.sent_at !== null && row.attempts === 1)).toBe(true);
    } finally {
      await other.close();
      otherDb.close();
    }
  });

  it('sends a notice again once the claim of a sender that died mid-send has expired', async () => {
    const to = await recipient(t);
    const otherDb = openDatabase(t.dataDir);
    // This sender claims the row and never finishes (its process "died").
    const stuck = new Outbox({
      store: new SqliteOutboxStore(otherDb),
      mailer: { transport: 'smtp', send: () => new Promise<void>(() => {}), async close() {} },
      now: () => t.clock.now,
      log: t.app.log,
      portalUrl: t.config.PUBLIC_URL,
    });
    const id = otherDb
      .prepare(
        `INSERT INTO notifications (user_id, to_address, subject, text, created_at, next_attempt_at)
         VALUES (?, ?, 'Your F5 account password was changed', 'text', ?, ?)`,
      )
      .run(to.id, to.email, t.clock.now, t.clock.now).lastInsertRowid;
    void stuck.deliverDue();
    await vi.waitFor(() => expect(rowsOf(t, to.id)[0]?.attempts).toBe(1));
    otherDb.close();

    await t.app.notifier.drain();
    expect(mailTo(t, to.email)).toEqual([]);
    t.clock.advance(CLAIM_MS);
    await t.app.notifier.drain();
    expect(mailTo(t, to.email)).toHaveLength(1);
    expect(rowsOf(t, to.id)).toMatchObject([{ id: Number(id), attempts: 2 }]);
  });
});

describe('delivery through SMTP', () => {
  it('retries a notice the SMTP server refused, and delivers it', async () => {
    const received: string[] = [];
    let refusals = 1;
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        if (refusals > 0) {
          refusals -= 1;
          const error = Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 450 });
          return callback(error);
        }
        callback();
      },
      onData(stream, _session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push(raw);
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const { port } = smtp.server.address() as AddressInfo;
    const t = await startClockedApp({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    try {
      const to = await recipient(t);
      t.app.notifier.queue(to, { type: 'factor-activated', factor: 'email' }, { at: t.clock.now });
      await t.app.notifier.drain();
      expect(received).toEqual([]);
      expect(rowsOf(t, to.id)[0]!.last_error).toMatch(/Mailbox temporarily unavailable/);
      t.clock.advance(retryDelayMs(1));
      await t.app.notifier.drain();
      expect(received).toHaveLength(1);
      expect(received[0]).toMatch(/^Subject: Email verification is now on for your F5 account$/m);
    } finally {
      await t.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});

describe('closing the app', () => {
  it('waits for the send in flight, then closes the transport and the database', async () => {
    const t = await startClockedApp();
    const to = await recipient(t);
    let finish: () => void = () => undefined;
    const original = mailbox(t).send.bind(mailbox(t));
    vi.spyOn(mailbox(t), 'send').mockImplementation(async (message) => {
      await new Promise<void>((resolve) => (finish = resolve));
      await original(message);
    });
    t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    const sending = t.app.notifier.deliverDue();
    await vi.waitFor(() => expect(rowsOf(t, to.id)[0]?.attempts).toBe(1));
    let closed = false;
    const closing = t.app.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    finish();
    await Promise.all([sending, closing]);
    // The send finished before the database closed: it is in the mailbox and marked sent.
    const db = openDatabase(t.dataDir);
    try {
      const row = db
        .prepare<[string], { sent_at: number | null }>('SELECT sent_at FROM notifications WHERE user_id = ?')
        .get(to.id);
      expect(row?.sent_at).toBe(t.clock.now);
      expect(
        db.prepare('SELECT count(*) AS n FROM mailbox_messages WHERE to_address = ?').get(to.email),
      ).toEqual({
        n: 1,
      });
    } finally {
      db.close();
      rmSync(t.dataDir, { recursive: true, force: true });
    }
  });
});

describe('the texts', () => {
  const at = Date.UTC(2026, 10, 23, 14, 5);
  const portal = 'https://account.example.com';
  const events: AccountEvent[] = [
    { type: 'password-changed' },
    { type: 'factor-activated', factor: 'googleAuth' },
    { type: 'factor-activated', factor: 'email' },
    { type: 'factor-turned-on', factor: 'email' },
    { type: 'factor-turned-off', factor: 'googleAuth' },
    { type: 'factor-removed', factor: 'email' },
    { type: 'account-locked', reason: 'sign-in', until: at + 15 * 60_000 },
    { type: 'account-locked', reason: 'password', until: at + 15 * 60_000 },
    { type: 'account-locked', reason: 'verification-code', until: at + 5 * 60_000 },
  ];

  it('each event has its own subject, and every text says what, when, which browser and what to do', () => {
    const notices = events.map((event) => composeNotice(event, { at, userAgent: CHROME_LINUX }, portal));
    expect(new Set(notices.map((n) => n.subject)).size).toBe(events.length);
    for (const { subject, text } of notices) {
      expect(subject).toContain('F5 account');
      expect(text).toContain('When: Monday, 23 November 2026 at 14:05 UTC');
      expect(text).toMatch(/^(Browser|Last attempt from): Chrome on Linux$/m);
      expect(text).toContain(
        `change your password now on the Password page of My Profile: ${portal}/password`,
      );
      expect(text).toContain(`check 2-step verification on the Security page: ${portal}/security`);
      expect(text).toContain('contact your support team');
    }
  });

  it('names the factor and what happened to it, and until when a lock lasts', () => {
    const text = (event: AccountEvent) => composeNotice(event, { at }, portal);
    expect(text({ type: 'factor-activated', factor: 'googleAuth' }).text).toContain(
      'Google Authenticator was set up and turned on for 2-step verification',
    );
    expect(text({ type: 'factor-turned-on', factor: 'email' }).subject).toBe(
      'Email verification was turned on again for your F5 account',
    );
    expect(text({ type: 'factor-removed', factor: 'email' }).subject).toBe(
      'Email verification was removed from your F5 account',
    );
    const locked = text({ type: 'account-locked', reason: 'sign-in', until: at + 15 * 60_000 });
    expect(locked.text).toContain(`paused until ${formatUtc(at + 15 * 60_000)}`);
    expect(locked.text).toContain('Monday, 23 November 2026 at 14:20 UTC');
    expect(locked.text).toContain(`Last attempt from: ${UNKNOWN_BROWSER}`);
  });

  it('reads the browser from the User-Agent, and never copies a stranger’s text from it', () => {
    expect(describeBrowser(CHROME_LINUX)).toBe('Chrome on Linux');
    expect(describeBrowser(SAFARI_IPHONE)).toBe('Safari on iOS');
    expect(describeBrowser(undefined)).toBe(UNKNOWN_BROWSER);
    expect(describeBrowser('')).toBe(UNKNOWN_BROWSER);
    expect(describeBrowser('curl/8.5.0')).not.toContain('curl/');
    expect(describeBrowser('Visit evil.example to unlock/1.0')).toBe(UNKNOWN_BROWSER);
    expect(describeBrowser('Mozilla/5.0 (X11; Linux x86_64) Phish-at-evil.example/9.9')).toBe(
      'a browser on Linux',
    );
    expect(describeBrowser(`${CHROME_LINUX} ${'x'.repeat(2000)}`)).toBe(UNKNOWN_BROWSER);
  });
});
