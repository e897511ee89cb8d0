/** Storage conformance (both engines): the outbox of notices (OutboxStore) and the development mailbox. */
import { describe, expect, it } from 'vitest';
import { insertUser, openTestStorage, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const CLAIM = 60_000;

describe('the outbox', () => {
  it('claims due notices once while claimed, in order, up to the batch and the attempts', async () => {
    const user = await insertUser(t.storage);
    const notice = (subject: string) => ({
      userId: user.id,
      to: user.email,
      subject,
      text: `${subject} text`,
    });
    await t.storage.outbox.add(notice('first'), NOW);
    await t.storage.outbox.add(notice('second'), NOW + 1);
    await t.storage.outbox.add(notice('later'), NOW + 10_000);

    const claimed = await t.storage.outbox.claimDue(NOW + 5, CLAIM, 3, 10);
    expect(claimed.map((n) => [n.subject, n.attempts, n.to_address, n.user_id])).toEqual([
      ['first', 1, user.email, user.id],
      ['second', 1, user.email, user.id],
    ]);
    // Claimed: no other sender takes them meanwhile.
    expect(await t.storage.outbox.claimDue(NOW + 5, CLAIM, 3, 10)).toEqual([]);
    const [first, second] = claimed;
    if (!first || !second) throw new Error('two notices claimed');
    await t.storage.outbox.markSent(first.id, NOW + 6);
    await t.storage.outbox.markFailed(second.id, NOW + 20_000, 'SMTP said no');
    // The failed one is due again at its next attempt; the sent one never.
    expect((await t.storage.outbox.claimDue(NOW + 15_000, CLAIM, 3, 1)).map((n) => n.subject)).toEqual([
      'later',
    ]);
    const again = await t.storage.outbox.claimDue(NOW + 20_000, CLAIM, 3, 10);
    expect(again.map((n) => [n.subject, n.attempts])).toEqual([['second', 2]]);
    // Released: due now, the attempt not counted.
    await t.storage.outbox.release(second.id, NOW + 20_001);
    expect((await t.storage.outbox.claimDue(NOW + 20_001, CLAIM, 3, 10)).map((n) => n.attempts)).toEqual([2]);
    // Tried maxAttempts times: given up ('later', claimed once and never marked, is due again).
    const last = await t.storage.outbox.claimDue(NOW + 20_001 + CLAIM, CLAIM, 2, 10);
    expect(last.map((n) => [n.subject, n.attempts])).toEqual([['later', 2]]);
  });

  it('keeps a secret text sealed until it is sent, then wipes it', async () => {
    const user = await insertUser(t.storage);
    const secret = 'Open https://portal.example/reset?token=a-live-secret to go on.';
    await t.storage.outbox.add(
      { userId: user.id, to: user.email, subject: 'Reset your password', text: secret, secret: true },
      NOW,
    );
    const stored = async () =>
      (
        await t.storage.sql.all<{ text: string }>('SELECT text FROM notifications WHERE user_id = ?', [
          user.id,
        ])
      ).map((row) => row.text);
    expect((await stored())[0]).toMatch(/^v1\./);
    expect(JSON.stringify(await stored())).not.toContain('a-live-secret');
    const claimed = (await t.storage.outbox.claimDue(NOW, CLAIM, 3, 100)).filter(
      (n) => n.user_id === user.id,
    );
    expect(claimed.map((n) => n.text)).toEqual([secret]);
    await t.storage.outbox.markSent(claimed[0]!.id, NOW + 1);
    expect(await stored()).toEqual(['']);
  });

  it('tells whether a subject was added for a user since a moment', async () => {
    const user = await insertUser(t.storage);
    await t.storage.outbox.add({ userId: user.id, to: user.email, subject: 'locked', text: '' }, NOW);
    expect(await t.storage.outbox.addedSince(user.id, 'locked', NOW)).toBe(true);
    expect(await t.storage.outbox.addedSince(user.id, 'locked', NOW + 1)).toBe(false);
    expect(await t.storage.outbox.addedSince(user.id, 'other', 0)).toBe(false);
  });

  it('prunes old notices that were sent or given up, never one still to send', async () => {
    const own = await openTestStorage();
    try {
      const user = await insertUser(own.storage);
      const add = (subject: string, at: number) =>
        own.storage.outbox.add({ userId: user.id, to: user.email, subject, text: '' }, at);
      await add('sent', NOW);
      await add('given up', NOW + 1);
      await add('waiting', NOW + 2);
      const [sent, givenUp] = await own.storage.outbox.claimDue(NOW + 1, CLAIM, 1, 2);
      if (!sent || !givenUp) throw new Error('two notices claimed');
      await own.storage.outbox.markSent(sent.id, NOW + 1);
      await own.storage.outbox.markFailed(givenUp.id, NOW + 2, 'no');
      expect(await own.storage.outbox.prune(NOW + 100, 1)).toBe(2);
      expect((await own.storage.outbox.claimDue(NOW + 100, CLAIM, 1, 10)).map((n) => n.subject)).toEqual([
        'waiting',
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('the development mailbox', () => {
  it('keeps the newest messages, newest first', async () => {
    const own = await openTestStorage();
    try {
      for (const n of [1, 2, 3, 4]) {
        await own.storage.mailbox.add(
          { to: `to${n}@example.org`, subject: `s${n}`, text: `t${n}` },
          new Date(NOW + n).toISOString(),
          3,
        );
      }
      const listed = await own.storage.mailbox.list(10);
      expect(listed.map((m) => [m.to, m.subject, m.text, m.date])).toEqual([
        ['to4@example.org', 's4', 't4', new Date(NOW + 4).toISOString()],
        ['to3@example.org', 's3', 't3', new Date(NOW + 3).toISOString()],
        ['to2@example.org', 's2', 't2', new Date(NOW + 2).toISOString()],
      ]);
      expect(await own.storage.mailbox.list(1)).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
