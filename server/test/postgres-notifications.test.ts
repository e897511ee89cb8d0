/**
 * The LISTEN/NOTIFY channel (db/postgres-notifications.ts) where it meets trouble (project postgres only): a database
 * it cannot reach at start-up (it serves without listening and keeps trying), and a burst of changes bigger than
 * one NOTIFY (split into payloads that fit, each heard whole by the other instance). The reconnection after pg_terminate_backend is proven with the session cache
 * (storage/postgres-session-cache.test.ts).
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNotificationChannel, payloadsOf } from '../src/db/postgres-notifications.js';
import { createTestDatabase, type TestDatabase } from './support/postgres.js';

const CHANNEL = 'portal_test_changes';

/** A loopback port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('the notification channel', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('opens without a reachable database, says why, and keeps trying in the background until closed', async () => {
    const logged: string[] = [];
    const channel = await openNotificationChannel({
      url: `postgres://portal@127.0.0.1:${await closedPort()}/portal`,
      connectTimeoutMs: 500,
      channel: CHANNEL,
      onNotification: () => undefined,
      log: (message) => logged.push(message),
    });
    expect(channel.listening).toBe(false);
    expect(logged).toEqual(['PostgreSQL notifications: could not listen; trying again']);
    // Sending while down loses the message, never the caller's request.
    await expect(channel.notify(['user:1'])).resolves.toBeUndefined();
    await channel.close();
  });

  it('splits a burst bigger than one NOTIFY into payloads that fit, and the other instance hears every part', async () => {
    const parts = Array.from({ length: 400 }, (_, index) => `grant:${index.toString().padStart(40, '0')}`);
    const payloads = payloadsOf(parts);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(7000);

    const heard: string[] = [];
    const listener = await openNotificationChannel({
      url: database.url,
      connectTimeoutMs: 2000,
      channel: CHANNEL,
      onNotification: (payload) => void heard.push(...payload.split(' ')),
      log: () => undefined,
    });
    const sender = await openNotificationChannel({
      url: database.url,
      connectTimeoutMs: 2000,
      channel: CHANNEL,
      onNotification: () => undefined,
      log: () => undefined,
    });
    try {
      expect(listener.listening && sender.listening).toBe(true);
      await sender.notify(parts);
      await expect.poll(() => heard.length).toBe(parts.length);
      expect(heard).toEqual(parts);
    } finally {
      await sender.close();
      await listener.close();
    }
  });
});
