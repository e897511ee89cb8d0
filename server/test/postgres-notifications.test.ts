/**
 * The LISTEN/NOTIFY channel (db/postgres-notifications.ts) where it meets trouble (project postgres only): a database
 * it cannot reach at start-up (it serves without listening and keeps trying), and a burst of changes bigger than
 * one NOTIFY (split into payloads that fit, each heard whole by the other instance), and a close that comes while it
 * is connecting again (the new connection is ended, not left listening). The reconnection after
 * pg_terminate_backend is proven with the session cache (storage/postgres-session-cache.test.ts).
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
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

/**
 * A loopback proxy to PostgreSQL that can hold new connections (accepted, their bytes left unread) until released:
 * a reconnection then waits where the test wants it. `drop()` cuts every connection through it, as a network would.
 */
async function holdingProxy(target: URL) {
  const sockets = new Set<Socket>();
  const upstreams = new Set<Socket>();
  const held: Array<() => void> = [];
  let holding = false;
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    accepted += 1;
    track(client);
    const forward = () => {
      const upstream = connect(Number(target.port), target.hostname);
      track(upstream);
      upstreams.add(upstream);
      upstream.on('close', () => upstreams.delete(upstream));
      client.pipe(upstream).pipe(client);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    if (holding) held.push(forward);
    else forward();
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = new URL(target.href);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.href,
    accepted: () => accepted,
    /** Connections forwarded to PostgreSQL and still open. */
    open: () => upstreams.size,
    hold: () => void (holding = true),
    release: () => held.splice(0).forEach((forward) => forward()),
    drop: () => sockets.forEach((socket) => socket.destroy()),
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
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

  it('closed while connecting again, it ends the new connection instead of listening on it', async () => {
    const proxy = await holdingProxy(new URL(database.url));
    const logged: string[] = [];
    const channel = await openNotificationChannel({
      url: proxy.url,
      connectTimeoutMs: 5000,
      channel: CHANNEL,
      onNotification: () => undefined,
      log: (message) => logged.push(message),
    });
    // Asked over a connection of the test's own, straight to the database.
    const observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    const listeners = async () =>
      (
        await observer.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'account-portal-notifications' AND datname = $1",
          [database.name],
        )
      ).rows[0]?.n;
    try {
      expect(await listeners()).toBe(1);
      expect(channel.listening).toBe(true);
      proxy.hold();
      proxy.drop();
      // Lost, then the reconnection's connection arrives and waits in the proxy.
      await expect.poll(() => proxy.accepted()).toBe(2);
      expect(channel.listening).toBe(false);
      await channel.close();
      expect(proxy.open()).toBe(0);
      proxy.release();
      expect(proxy.open()).toBe(1);
      // The held connection completes its start-up after the close: it is ended, never left listening.
      await expect.poll(() => proxy.open()).toBe(0);
      expect(await listeners()).toBe(0);
      expect(channel.listening).toBe(false);
      expect(logged).toEqual(['PostgreSQL notifications: the listening connection was lost; reconnecting']);
    } finally {
      await channel.close();
      await proxy.close();
      await observer.end();
    }
  });
});
