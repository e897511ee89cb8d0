/**
 * Notices to the account holder: the outbox (`app.notifier`) delivers through the mail transport after the
 * change commits, retries failures with backoff, never sends a row twice under concurrent sweeps, and the texts
 * say what happened, when, from which browser and what to do.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { openSqlite } from '../src/db/sqlite.js';
import type { Mailbox } from '../src/mail/mailbox.js';
import type { MailMessage } from '../src/mail/mailer.js';
import { describeBrowser, UNKNOWN_BROWSER } from '../src/notifications/browser.js';
import { CLAIM_MS, MAX_ATTEMPTS, RETENTION_MS, retryDelayMs } from '../src/notifications/outbox.js';
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

function rowsOf(t: ClockedApp, userId: string): Promise<NotificationRow[]> {
  return t.app.storage.sql.all<NotificationRow>(
    'SELECT id, attempts, next_attempt_at, sent_at, last_error FROM notifications WHERE user_id = ? ORDER BY id',
    [userId],
  );
}

const mailbox = (t: ClockedApp) => t.app.mailer as Mailbox;
const mailTo = async (t: ClockedApp, email: string) =>
  (await mailbox(t).list(1000)).filter((m) => m.to === email);

/**
 * A connection of its own to the app's database, as another instance (or a restarted one) has: the same SQLite
 * file, or the same PostgreSQL database. The caller closes it.
 */
async function anotherConnection(t: ClockedApp): Promise<Database> {
  const { database } = t.config;
  if (database.kind === 'sqlite') return openSqlite(database.dataDir);
  return openPostgres({
    url: database.url,
    poolMax: 2,
    connectTimeoutMs: database.connectTimeoutMs,
    statementTimeoutMs: database.statementTimeoutMs,
  });
}

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
    await t.app.notifier.queue(
      to,
      { type: 'password-changed' },
      { at: t.clock.now, userAgent: CHROME_LINUX },
    );
    // No sweep is asked for: the kick after queue() delivers it.
    await vi.waitFor(async () => expect(await mailTo(t, to.email)).toHaveLength(1));
    const [mail] = await mailTo(t, to.email);
    expect(mail!.subject).toBe('Your F5 account password was changed');
    expect(mail!.text).toContain('Browser: Chrome on Linux');
    await t.app.notifier.drain();
    const [row] = await rowsOf(t, to.id);
    expect(row).toMatchObject({ attempts: 1, sent_at: t.clock.now, last_error: null });
    // Shown by the mailbox's JSON too, as the e2e tests read it.
    const listed = (await t.app.inject('/dev/mailbox/messages')).json<{ to: string; subject: string }[]>();
    expect(listed.filter((m) => m.to === to.email).map((m) => m.subject)).toEqual([mail!.subject]);
  });

  it('sends nothing for a notice queued inside a transaction that rolled back', async () => {
    const to = await recipient(t);
    const change = t.app.storage.transaction(async (tx) => {
      await t.app.notifier.queue(
        to,
        { type: 'factor-removed', factor: 'email' },
        { at: t.clock.now },
        tx.outbox,
      );
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    await t.app.notifier.drain();
    expect(await rowsOf(t, to.id)).toEqual([]);
    expect(await mailTo(t, to.email)).toEqual([]);
  });

  it('retries a failing transport with growing delays on the app clock, then delivers once', async () => {
    const to = await recipient(t);
    const send = vi
      .spyOn(mailbox(t), 'send')
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockRejectedValueOnce(new Error('connection refused'));
    await t.app.notifier.queue(to, { type: 'factor-turned-off', factor: 'googleAuth' }, { at: t.clock.now });
    await t.app.notifier.drain();
    expect((await rowsOf(t, to.id))[0]).toMatchObject({
      attempts: 1,
      sent_at: null,
      last_error: 'connection refused',
    });
    expect((await rowsOf(t, to.id))[0]!.next_attempt_at).toBe(t.clock.now + retryDelayMs(1));

    // Not before its time.
    t.clock.advance(retryDelayMs(1) - 1);
    await t.app.notifier.drain();
    expect((await rowsOf(t, to.id))[0]!.attempts).toBe(1);
    t.clock.advance(1);
    await t.app.notifier.drain();
    expect((await rowsOf(t, to.id))[0]).toMatchObject({ attempts: 2, sent_at: null });
    expect(retryDelayMs(2)).toBeGreaterThan(retryDelayMs(1));
    t.clock.advance(retryDelayMs(2));
    await t.app.notifier.drain();

    expect((await rowsOf(t, to.id))[0]).toMatchObject({
      attempts: 3,
      sent_at: t.clock.now,
      last_error: null,
    });
    expect((await mailTo(t, to.email)).map((m) => m.subject)).toEqual([
      'Google Authenticator was turned off for your F5 account',
    ]);
    expect(send.mock.calls.filter(([message]) => message.to === to.email)).toHaveLength(3);
  });

  it('gives a notice up after MAX_ATTEMPTS failed sends, and prunes it after the retention time', async () => {
    const to = await recipient(t);
    const send = vi.spyOn(mailbox(t), 'send').mockRejectedValue(new Error('mailbox full'));
    await t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    for (let round = 0; round < MAX_ATTEMPTS + 3; round += 1) {
      await t.app.notifier.drain();
      t.clock.advance(retryDelayMs(MAX_ATTEMPTS));
    }
    expect(send.mock.calls.filter(([message]) => message.to === to.email)).toHaveLength(MAX_ATTEMPTS);
    expect((await rowsOf(t, to.id))[0]).toMatchObject({ attempts: MAX_ATTEMPTS, sent_at: null });
    t.clock.advance(RETENTION_MS);
    await t.app.notifier.prune();
    expect(await rowsOf(t, to.id)).toEqual([]);
  });

  it('prunes sent notices after the retention time, not before', async () => {
    const to = await recipient(t);
    await t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    await t.app.notifier.drain();
    t.clock.advance(RETENTION_MS - 1);
    await t.app.notifier.prune();
    expect(await rowsOf(t, to.id)).toHaveLength(1);
    t.clock.advance(2);
    await t.app.notifier.prune();
    expect(await rowsOf(t, to.id)).toEqual([]);
  });
});

/** An instance of the portal that is not this test's app (see otherInstance). */
interface OtherInstance {
  /** Resolves once its transport was handed its first notice: it has claimed rows. */
  claimed: Promise<void>;
  /** Starts its two sweeps at once; resolves to what its transport sent once both ended. */
  sweep(): Promise<MailMessage[]>;
  /** Ends the process at once, as a crash would (SIGKILL). */
  kill(): Promise<void>;
}

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Another instance on the app's database: a process of its own (one SQLite connection per process, as the server
 * has; or its own PostgreSQL pool), with its own outbox on the app's clock and its own transport, which takes its
 * time (so sweeps overlap) or, with `hang`, never finishes a send.
 */
async function otherInstance(t: ClockedApp, { hang = false } = {}): Promise<OtherInstance> {
  const moduleUrl = (file: string) => pathToFileURL(path.join(SERVER_DIR, file)).href;
  const script = `
    const { openStorage } = await import(${JSON.stringify(moduleUrl('src/plugins/app/open-storage.ts'))});
    const { Outbox } = await import(${JSON.stringify(moduleUrl('src/notifications/outbox.ts'))});
    const settings = JSON.parse(process.env.PORTAL_STORAGE);
    // The key travels as hex (SQLite: unset, the child reads DATA_DIR's key file as the server does).
    if (settings.KEY_RING_ENCRYPTION_KEY) settings.KEY_RING_ENCRYPTION_KEY = Buffer.from(settings.KEY_RING_ENCRYPTION_KEY, 'hex');
    const opened = await openStorage(settings);
    const sent = [];
    let claimed = false;
    const mailer = {
      transport: 'smtp',
      async send(message) {
        if (!claimed) process.send({ claimed: (claimed = true) });
        if (process.env.PORTAL_HANG) return new Promise(() => {});
        await new Promise((resolve) => setImmediate(resolve));
        sent.push(message);
      },
      async close() {},
    };
    const log = { warn: (details, message) => process.stderr.write(message + ': ' + details?.err + '\\n') };
    const outbox = new Outbox({ store: opened.storage.outbox, mailer, now: () => Number(process.env.PORTAL_NOW), log, portalUrl: 'http://localhost:3000' });
    process.once('message', async () => {
      await Promise.all([outbox.deliverDue(), outbox.deliverDue()]);
      await opened.close();
      process.send({ sent }, () => process.exit(0));
    });
    process.send({ ready: true });
  `;
  const {
    DATA_DIR,
    DATABASE_URL,
    DATABASE_POOL_MAX,
    DATABASE_CONNECT_TIMEOUT_MS,
    DATABASE_STATEMENT_TIMEOUT_MS,
    KEY_RING_ENCRYPTION_KEY,
  } = t.config;
  const child = spawn(
    process.execPath,
    ['--conditions=portal-source', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        PORTAL_STORAGE: JSON.stringify({
          DATA_DIR,
          DATABASE_URL,
          DATABASE_POOL_MAX,
          DATABASE_CONNECT_TIMEOUT_MS,
          DATABASE_STATEMENT_TIMEOUT_MS,
          KEY_RING_ENCRYPTION_KEY: KEY_RING_ENCRYPTION_KEY?.toString('hex'),
        }),
        PORTAL_NOW: String(t.clock.now),
        ...(hang ? { PORTAL_HANG: '1' } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const died = exited.then(() => {
    throw new Error('the other instance exited before it was done');
  });
  // Only the test's own wait reports it.
  died.catch(() => undefined);
  const message = (key: 'ready' | 'claimed' | 'sent') =>
    Promise.race([
      new Promise<unknown>((resolve) => {
        const onMessage = (value: Record<string, unknown>) => {
          if (!(key in value)) return;
          child.off('message', onMessage);
          resolve(value[key]);
        };
        child.on('message', onMessage);
      }),
      died,
    ]);
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    await message('ready');
  } catch (error) {
    await kill();
    throw error;
  }
  const claimed = message('claimed').then(() => undefined);
  claimed.catch(() => undefined);
  return {
    claimed,
    async sweep() {
      const sent = message('sent');
      child.send('sweep');
      return (await sent) as MailMessage[];
    },
    kill,
  };
}

describe('several senders', () => {
  const t = appForBlock(() => startClockedApp());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sends each notice once when sweeps run at once in this instance and in another one', async () => {
    const to = await recipient(t);
    const other = await otherInstance(t);
    try {
      // This instance's sends wait until the other instance has claimed rows, so both take part whichever claims
      // first: each sweep here claims one batch of 20, then waits.
      const send = mailbox(t).send.bind(mailbox(t));
      vi.spyOn(mailbox(t), 'send').mockImplementation(async (message) => {
        await other.claimed;
        await send(message);
      });
      // Straight into the outbox (no kick): the only sweeps are the four below. Through notifier.queue, PostgreSQL
      // would start one sweep per notice (its kick fires while the transaction waits for each insert).
      const count = 45;
      await t.app.storage.transaction(async (tx) => {
        for (let i = 0; i < count; i += 1) {
          await tx.outbox.add(
            { userId: to.id, to: to.email, subject: `Notice ${i}`, text: 'text' },
            t.clock.now,
          );
        }
      });
      const [, otherSent] = await Promise.all([
        t.app.notifier.deliverDue(),
        other.sweep(),
        t.app.notifier.deliverDue(),
      ]);
      await t.app.notifier.drain();
      const here = await mailTo(t, to.email);
      const there = otherSent.filter((m) => m.to === to.email);
      expect(here.length + there.length).toBe(count);
      // Both instances took part, and no notice went out twice.
      expect(there.length).toBeGreaterThan(0);
      expect(here.length).toBeGreaterThan(0);
      expect((await rowsOf(t, to.id)).every((row) => row.sent_at !== null && row.attempts === 1)).toBe(true);
    } finally {
      await other.kill();
    }
  });

  it('sends a notice again once the claim of a sender that died mid-send has expired', async () => {
    const to = await recipient(t);
    const inserted = await t.app.storage.sql.get<{ id: number }>(
      `INSERT INTO notifications (user_id, to_address, subject, text, created_at, next_attempt_at)
       VALUES (?, ?, 'Your F5 account password was changed', 'text', ?, ?) RETURNING id`,
      [to.id, to.email, t.clock.now, t.clock.now],
    );
    // This sender claims the row and dies in the middle of sending it.
    const stuck = await otherInstance(t, { hang: true });
    try {
      void stuck.sweep().catch(() => undefined);
      await stuck.claimed;
    } finally {
      await stuck.kill();
    }
    expect((await rowsOf(t, to.id))[0]?.attempts).toBe(1);

    await t.app.notifier.drain();
    expect(await mailTo(t, to.email)).toEqual([]);
    t.clock.advance(CLAIM_MS);
    await t.app.notifier.drain();
    expect(await mailTo(t, to.email)).toHaveLength(1);
    expect(await rowsOf(t, to.id)).toMatchObject([{ id: inserted?.id, attempts: 2 }]);
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
      await t.app.notifier.queue(to, { type: 'factor-activated', factor: 'email' }, { at: t.clock.now });
      await t.app.notifier.drain();
      expect(received).toEqual([]);
      expect((await rowsOf(t, to.id))[0]!.last_error).toMatch(/Mailbox temporarily unavailable/);
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
    await t.app.notifier.queue(to, { type: 'password-changed' }, { at: t.clock.now });
    const sending = t.app.notifier.deliverDue();
    await vi.waitFor(async () => expect((await rowsOf(t, to.id))[0]?.attempts).toBe(1));
    let closed = false;
    const closing = t.app.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    finish();
    await Promise.all([sending, closing]);
    // The send finished before the database closed: it is in the mailbox and marked sent.
    const db = await anotherConnection(t);
    try {
      const row = await db.get<{ sent_at: number | null }>(
        'SELECT sent_at FROM notifications WHERE user_id = ?',
        [to.id],
      );
      expect(row?.sent_at).toBe(t.clock.now);
      expect(
        await db.get('SELECT count(*) AS n FROM mailbox_messages WHERE to_address = ?', [to.email]),
      ).toEqual({
        n: 1,
      });
    } finally {
      await db.close();
      // The app is closed already (a second close does nothing): this removes its data folder and database.
      await t.close();
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
