// Load for the fault tests: per user, a stream of profile updates (each a new last name) through the proxy with
// the user's access token, one request after the other, every answer recorded. Afterwards, every acknowledged
// (2xx) write must be there: each user's stored last name is the last acknowledged one, or one sent after it that
// got no clear answer (cut off by a kill, or a 503 that may have come after the commit).
import { expect, type Browser } from '@playwright/test';
import { apiBody } from './cluster.js';
import { accessTokenOf } from './cluster-fixture.js';
import { PROXY_ERROR_HEADER, SERVED_BY_HEADER } from './cluster-proxy.js';
import { signIn } from './sign-in.js';
import type { TestUser } from './users.js';

/**
 * - acknowledged: 2xx, the write is done;
 * - unavailable: 503 with Retry-After (the database is away): not done, or done and not confirmed;
 * - unknown: no answer from an instance (the proxy's 502 after a reset, a network error, a timeout);
 * - refused: any other answer, which no test here expects (a 500, a 4xx).
 */
export type Outcome = 'acknowledged' | 'unavailable' | 'unknown' | 'refused';

export interface Answer {
  stream: number;
  kind: 'update' | 'read';
  /** The last name an update sent. */
  value?: string;
  outcome: Outcome;
  status?: number;
  retryAfter?: string;
  instance?: string;
  /** Why there was no answer (the proxy's error, a network error, a timeout). */
  error?: string;
  startedAt: number;
  ms: number;
}

export interface SignedInUser extends TestUser {
  token: string;
}

/**
 * Signs each user in through the provider's page in a browser context of its own; returns their access tokens.
 * One after the other: eight pages signing in at once on 2 cores left one on its callback past the wait of
 * `signIn`, before any fault was made.
 */
export async function signInAll(browser: Browser, users: readonly TestUser[]): Promise<SignedInUser[]> {
  const signedIn: SignedInUser[] = [];
  for (const user of users) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, user, '/profile');
      signedIn.push({ ...user, token: await accessTokenOf(page) });
    } finally {
      await context.close();
    }
  }
  return signedIn;
}

export interface LoadOptions {
  /** Pause between one stream's requests: a steady load, not a busy loop against a refusing database. */
  pauseMs: number;
  /** A request unanswered after this long counts as a hang (outcome unknown, error 'timeout'). */
  timeoutMs: number;
  /** Every other request is an authenticated read (GET isfederated) instead of an update. */
  reads?: boolean;
}

export class ProfileLoad {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly streams: Promise<void>[];

  constructor(
    private readonly origin: string,
    private readonly users: readonly SignedInUser[],
    private readonly options: LoadOptions,
    private readonly label = 'Load',
  ) {
    this.streams = users.map((_, stream) => this.run(stream));
  }

  /** Ends every stream after its current request. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.streams);
  }

  /** Answers to requests started at or after `at` (ms since the epoch), optionally of one outcome. */
  since(at: number, outcome?: Outcome): Answer[] {
    return this.answers.filter(
      (answer) => answer.startedAt >= at && (!outcome || answer.outcome === outcome),
    );
  }

  /** Waits until `count` more writes (from now on) were acknowledged. */
  async acknowledged(count: number, timeoutMs = 30_000): Promise<void> {
    const from = Date.now();
    await expect
      .poll(() => this.since(from, 'acknowledged').filter((answer) => answer.kind === 'update').length, {
        timeout: timeoutMs,
        message: `${count} acknowledged writes`,
      })
      .toBeGreaterThanOrEqual(count);
  }

  private async run(stream: number): Promise<void> {
    const user = this.users[stream]!;
    for (let number = 0; this.running; number += 1) {
      const read = this.options.reads === true && number % 2 === 1;
      const value = `${this.label} ${stream}-${number}`;
      const answer: Answer = read
        ? await this.request(stream, 'read', 'GET', `/api/profile/${user.sub}/isfederated`, user.token)
        : await this.request(stream, 'update', 'PUT', `/api/profile/${user.sub}/update`, user.token, value);
      this.answers.push(answer);
      await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs));
    }
  }

  private async request(
    stream: number,
    kind: Answer['kind'],
    method: string,
    path: string,
    token: string,
    value?: string,
  ): Promise<Answer> {
    const startedAt = Date.now();
    const base = { stream, kind, ...(value !== undefined ? { value } : {}), startedAt };
    try {
      const response = await fetch(`${this.origin}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(value !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(value !== undefined ? { body: JSON.stringify({ lastName: value }) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await response.arrayBuffer();
      const status = response.status;
      const retryAfter = response.headers.get('retry-after') ?? undefined;
      const proxyError = response.headers.get(PROXY_ERROR_HEADER) ?? undefined;
      const instance = response.headers.get(SERVED_BY_HEADER) ?? undefined;
      const outcome: Outcome =
        status >= 200 && status < 300
          ? 'acknowledged'
          : status === 503 && retryAfter !== undefined
            ? 'unavailable'
            : proxyError !== undefined
              ? 'unknown'
              : 'refused';
      return {
        ...base,
        outcome,
        status,
        ...(retryAfter !== undefined ? { retryAfter } : {}),
        ...(instance !== undefined ? { instance } : {}),
        ...(proxyError !== undefined ? { error: proxyError } : {}),
        ms: Date.now() - startedAt,
      };
    } catch (error) {
      const name = (error as Error).name;
      return {
        ...base,
        outcome: 'unknown',
        error: name === 'TimeoutError' ? 'timeout' : String(error),
        ms: Date.now() - startedAt,
      };
    }
  }

  /**
   * The last names each user may have now: the last acknowledged one (or the initial one), then every later one
   * without a clear answer. The first is what a correct system shows when nothing was in doubt.
   */
  acceptable(stream: number, initial: string): string[] {
    const writes = this.answers.filter((answer) => answer.stream === stream && answer.kind === 'update');
    const last = writes.map((write) => write.outcome).lastIndexOf('acknowledged');
    const later = writes.slice(last + 1).filter((write) => write.outcome !== 'refused');
    return [last < 0 ? initial : writes[last]!.value!, ...later.map((write) => write.value!)];
  }

  /** Reads each user's stored last name back (an update that changes nothing answers the stored profile). */
  async expectEveryAcknowledgedWrite(): Promise<void> {
    for (const [stream, user] of this.users.entries()) {
      const response = await fetch(`${this.origin}/api/profile/${user.sub}/update`, {
        method: 'PUT',
        headers: {
          Authorization: `Bearer ${user.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify({ country: user.country }),
      });
      expect(response.status, `reading back user ${stream}`).toBe(200);
      const stored = await apiBody<{ lastName: string }>(response);
      expect(this.acceptable(stream, user.familyName), `user ${stream}'s stored last name`).toContain(
        stored.lastName,
      );
    }
  }

  /** One line for the test's report. */
  summary(): string {
    const count = (outcome: Outcome) => this.answers.filter((answer) => answer.outcome === outcome).length;
    const slowest = Math.max(0, ...this.answers.map((answer) => answer.ms));
    return (
      `${this.answers.length} requests from ${this.users.length} streams: ${count('acknowledged')} acknowledged, ` +
      `${count('unavailable')} 503 + Retry-After, ${count('unknown')} without an answer, ${count('refused')} ` +
      `other; slowest ${slowest} ms`
    );
  }
}
