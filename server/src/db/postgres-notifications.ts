/**
 * One PostgreSQL channel of LISTEN/NOTIFY between the instances of a deployment, on a connection of its own (a
 * listening connection cannot be pooled): `notify` sends on it, every other instance's `onNotification` hears it
 * once the sender's statement committed. Its own notifications are not handed back.
 *
 * A lost connection (a restart, a failover, pg_terminate_backend) is reported (`onLost`: what was said meanwhile
 * is unknown) and opened again with exponential backoff (100 ms doubling to 5 s, with jitter); `onListening` says
 * when it listens again. Notifications sent while it is down are dropped: the listeners' own bound covers them.
 */
import pg from 'pg';
import { poolConfig, type PostgresOptions } from './postgres-pool.js';

/** The most bytes of one NOTIFY payload (PostgreSQL's limit is 8000). */
const MAX_PAYLOAD = 7000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

export interface NotificationChannelOptions extends Pick<PostgresOptions, 'url' | 'connectTimeoutMs'> {
  /** The channel's name: an SQL identifier of lower-case letters and underscores. */
  channel: string;
  /** A payload another instance sent. */
  onNotification(payload: string): void;
  /** Listening (again): from now on every notification arrives. */
  onListening?(): void;
  /** The connection was lost: notifications may have been missed. */
  onLost?(): void;
  log(message: string, error?: unknown): void;
}

export interface NotificationChannel {
  /** Sends `parts` (joined by spaces, split into payloads that fit) to the other instances; never throws. */
  notify(parts: readonly string[]): Promise<void>;
  /** Whether it listens now. */
  readonly listening: boolean;
  /** The listening connection's server process, while connected (tests end it to prove the reconnection). */
  readonly backendPid: number | undefined;
  close(): Promise<void>;
}

/** `parts` joined by spaces into payloads of at most MAX_PAYLOAD bytes. */
export function payloadsOf(parts: readonly string[]): string[] {
  const payloads: string[] = [];
  let current = '';
  for (const part of parts) {
    const next = current === '' ? part : `${current} ${part}`;
    if (Buffer.byteLength(next) > MAX_PAYLOAD && current !== '') {
      payloads.push(current);
      current = part;
    } else current = next;
  }
  if (current !== '') payloads.push(current);
  return payloads;
}

/**
 * Opens the channel: resolves once it listens, or once the first try failed (it keeps trying in the background:
 * an instance serves without it, within the listeners' bound).
 */
export async function openNotificationChannel(
  options: NotificationChannelOptions,
): Promise<NotificationChannel> {
  if (!/^[a-z_]+$/.test(options.channel)) throw new Error(`Bad channel name: ${options.channel}`);
  const { statement_timeout, query_timeout, connectionString, connectionTimeoutMillis, keepAlive } =
    poolConfig({
      ...options,
      poolMax: 1,
      statementTimeoutMs: 5000,
    });
  let client: pg.Client | undefined;
  let backendPid: number | undefined;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const lost = (current: pg.Client, error?: unknown) => {
    if (client !== current) return;
    client = undefined;
    backendPid = undefined;
    current.removeAllListeners('notification');
    // Its 'error' listener stays: a late error of a dropped client must not end the process.
    void current.end().catch(() => undefined);
    if (closed) return;
    options.log('PostgreSQL notifications: the listening connection was lost; reconnecting', error);
    options.onLost?.();
    schedule();
  };

  const schedule = () => {
    const delay = retryMs * (0.5 + Math.random() / 2);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    retryTimer = setTimeout(() => void connect(), delay);
    retryTimer.unref();
  };

  async function connect(): Promise<void> {
    retryTimer = undefined;
    if (closed) return;
    const next = new pg.Client({
      connectionString,
      connectionTimeoutMillis,
      keepAlive,
      statement_timeout,
      query_timeout,
      application_name: 'account-portal-notifications',
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      const row = await next.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await next.query(`LISTEN ${options.channel}`);
      if (closed) {
        await next.end();
        return;
      }
      const pid = row.rows[0]?.pid;
      next.on('notification', (message) => {
        // Its own NOTIFY (sent on this connection) comes back too: the sender already acted on it.
        if (message.processId === pid || message.payload === undefined) return;
        options.onNotification(message.payload);
      });
      client = next;
      backendPid = pid;
      retryMs = FIRST_RETRY_MS;
      options.onListening?.();
    } catch (error) {
      next.removeAllListeners('end');
      void next.end().catch(() => undefined);
      if (closed) return;
      options.log('PostgreSQL notifications: could not listen; trying again', error);
      schedule();
    }
  }

  // One NOTIFY at a time on the connection; what arrives meanwhile goes out together in the next one (a burst of
  // changes costs a few statements, not one each).
  let queued: string[] = [];
  const flush = async () => {
    while (queued.length > 0) {
      const parts = [...new Set(queued)];
      queued = [];
      const current = client;
      if (current === undefined) continue;
      try {
        for (const payload of payloadsOf(parts)) {
          await current.query('SELECT pg_notify($1, $2)', [options.channel, payload]);
        }
      } catch (error) {
        options.log('PostgreSQL notifications: a notification was not sent', error);
      }
    }
  };
  let tail = Promise.resolve();
  /** Resolves once `parts` went out (or were dropped: the connection is down). flush never throws. */
  const send = (parts: readonly string[]): Promise<void> => {
    if (parts.length === 0) return Promise.resolve();
    queued.push(...parts);
    // Runs after the flush under way, which may have taken its parts already; finds nothing when an earlier one
    // sent them.
    tail = tail.then(flush);
    return tail;
  };

  await connect();
  return {
    get listening() {
      return client !== undefined;
    },
    get backendPid() {
      return backendPid;
    },
    notify: send,
    async close() {
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
