// Data durability: concurrent profile and password writes against a server of this test's own, SIGKILL in the
// middle of them, a restart on the same data folder, and then every write the API acknowledged (2xx) must be
// there, and SQLite's integrity check must say 'ok'. The suite's :3000 server is never touched.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Browser, type BrowserContext } from '@playwright/test';
import { Database } from '../support/database.js';
import { DURABILITY_PORT, REPO_ROOT } from '../support/paths.js';
import { tempFolder } from '../support/remote-build.js';
import { STARTUP_TIMEOUT_MS } from '../support/server-processes.js';
import { renewWithSessionCookie } from '../support/silent-renewal.js';
import { signIn } from '../support/sign-in.js';
import { createUser, type TestUser } from '../support/users.js';

const ORIGIN = `http://localhost:${DURABILITY_PORT}`;
const SERVER = path.join(REPO_ROOT, 'server', 'dist', 'server.js');
const USERS = 4;
/** SIGKILL once at least this many writes of each kind were acknowledged (the streams keep going until then). */
const KILL_AFTER = { profile: 400, password: 40 };

/** `node server/dist/server.js` on the test's port and data folder; the embedded provider follows its origin. */
class PortalServer {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(private readonly env: Record<string, string>) {}

  get log(): string {
    return this.output;
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [SERVER], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null)
        throw new Error(`The server exited with ${child.exitCode}:\n${this.output}`);
      const healthy = await fetch(`${ORIGIN}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `The server did not answer /healthz within ${STARTUP_TIMEOUT_MS / 1000} s:\n${this.output}`,
    );
  }

  /** Ends the process with `signal` and waits until it is gone. */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}

/**
 * A user signed in through the provider's page in Chromium, as a user does, with the access token the shell got.
 * A password change ends every grant of the account, the caller's too: like the page, the session then renews with
 * its provider cookie (one renewal shared by the user's two writers) and sends the refused write once more.
 */
class SignedInUser {
  private renewing: Promise<string> | undefined;

  private constructor(
    private readonly context: BrowserContext,
    private readonly clientId: string,
    public token: string,
  ) {}

  static async signIn(browser: Browser, user: TestUser, clientId: string): Promise<SignedInUser> {
    const context = await browser.newContext({ baseURL: ORIGIN });
    const page = await context.newPage();
    await signIn(page, user, '/profile');
    const token = await page.evaluate(() => {
      const storage = JSON.parse(localStorage.getItem('okta-token-storage') ?? '{}') as {
        accessToken?: { accessToken?: string };
      };
      return storage.accessToken?.accessToken;
    });
    await page.close();
    if (!token) throw new Error(`No access token in the page's token storage for ${user.email}`);
    return new SignedInUser(context, clientId, token);
  }

  /** PUT with the current token; a 401 (refused before anything ran) renews once and sends it again. */
  async put(url: string, body: unknown): Promise<Response> {
    const sent = this.token;
    const response = await put(sent, url, body);
    if (response.status !== 401) return response;
    await response.arrayBuffer();
    if (this.token === sent) {
      this.renewing ??= renewWithSessionCookie(this.context.request, ORIGIN, this.clientId).finally(() => {
        this.renewing = undefined;
      });
      this.token = await this.renewing;
    }
    return put(this.token, url, body);
  }

  close(): Promise<void> {
    return this.context.close();
  }
}

/** A password that passes the policy for these users: no run of 3 characters from 'e2e', the hex id, 'example'. */
function passwordNumber(user: number, write: number): string {
  const letters = 'ghijknoqrs'; // digits written with letters that are in none of those
  const code = [...String(write)].map((digit) => letters[Number(digit)]).join('');
  return `Vt${code}Wz-${user}Uy`;
}

type Outcome = 'acknowledged' | 'refused' | 'unknown';
interface Write {
  value: string;
  outcome: Outcome;
}

interface Stream {
  user: number;
  kind: 'profile' | 'password';
  writes: Write[];
}

async function put(token: string, url: string, body: unknown): Promise<Response> {
  return fetch(`${ORIGIN}${url}`, {
    method: 'PUT',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
}

/** The last acknowledged value, then every later one whose outcome is unknown (sent, no answer): one of them is stored. */
function acceptable(writes: Write[], initial: string): string[] {
  const lastAcknowledged = writes.map((write) => write.outcome).lastIndexOf('acknowledged');
  const later = writes.slice(lastAcknowledged + 1).filter((write) => write.outcome === 'unknown');
  return [
    lastAcknowledged < 0 ? initial : writes[lastAcknowledged]!.value,
    ...later.map((write) => write.value),
  ];
}

test('acknowledged profile and password writes survive a SIGKILL of the server mid-stream, and the database passes its integrity check', async ({
  browser,
}) => {
  // Two server starts, four sign-ins and some 480 writes: about 70 s beside the suite, over 120 s at load 20.
  test.setTimeout(240_000);
  const dataDir = tempFolder('durability');
  const settingsFile = path.join(dataDir, 'settings.json');
  const settings = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'config', 'settings.json'), 'utf8'),
  ) as Record<string, unknown>;
  // The settings' Domain is the server's own origin: the embedded provider runs there, issuer {ORIGIN}/oauth2/default.
  writeFileSync(settingsFile, JSON.stringify({ ...settings, Domain: ORIGIN }));
  const env = {
    PORT: String(DURABILITY_PORT),
    HOST: 'localhost',
    PUBLIC_URL: ORIGIN,
    DATA_DIR: dataDir,
    SETTINGS_FILE: settingsFile,
    LOG_LEVEL: 'warn',
    // Every write comes from this one address: lift the per-address flood guard far above the test's rate.
    API_RATE_LIMIT: '1000000',
    // Each password change ends the grants of its account: the writers renew silently (authorize + token).
    AUTHORIZE_RATE_LIMIT: '1000000',
    TOKEN_RATE_LIMIT: '1000000',
  };
  const servers: PortalServer[] = [];
  const sessions: SignedInUser[] = [];
  const startServer = async () => {
    const server = new PortalServer(env);
    servers.push(server);
    await server.start();
    return server;
  };

  try {
    const first = await startServer();
    const users = await Promise.all(
      Array.from({ length: USERS }, () => createUser({ dataDir, country: 'DE' })),
    );
    for (const user of users)
      sessions.push(await SignedInUser.signIn(browser, user, String(settings.ClientId)));

    // Per user, a stream of profile updates (each a new last name) and a stream of password changes (each from
    // the last acknowledged password), all users at once: 2 × USERS writers in parallel.
    let killed = false;
    let killedAfter = 0;
    const streams: Stream[] = users.flatMap((_, user) => [
      { user, kind: 'profile' as const, writes: [] },
      { user, kind: 'password' as const, writes: [] },
    ]);
    const acknowledged = (kind: Stream['kind']) =>
      streams
        .filter((stream) => stream.kind === kind)
        .reduce(
          (sum, stream) => sum + stream.writes.filter((write) => write.outcome === 'acknowledged').length,
          0,
        );

    const run = async (stream: Stream) => {
      const user = users[stream.user]!;
      const session = sessions[stream.user]!;
      let current = user.password;
      for (let number = 0; !killed; number += 1) {
        const value =
          stream.kind === 'profile'
            ? `Durable ${stream.user}-${number}`
            : passwordNumber(stream.user, number);
        const write: Write = { value, outcome: 'unknown' };
        stream.writes.push(write);
        try {
          const response =
            stream.kind === 'profile'
              ? await session.put(`/api/profile/${user.sub}/update`, { lastName: value })
              : await session.put(`/api/password/${user.sub}/change`, {
                  OldPassword: current,
                  NewPassword: value,
                });
          await response.arrayBuffer();
          write.outcome = response.ok ? 'acknowledged' : 'refused';
          if (response.ok && stream.kind === 'password') current = value;
          if (!response.ok) throw new Error(`${stream.kind} write ${value} answered ${response.status}`);
        } catch (error) {
          // No answer: the server was killed with this write in flight (or before it arrived).
          if (write.outcome === 'unknown' && killed) return;
          throw error;
        }
      }
    };
    const writesStarted = Date.now();
    const writers = streams.map(run);
    const watch = (async () => {
      while (
        !killed &&
        (acknowledged('profile') < KILL_AFTER.profile || acknowledged('password') < KILL_AFTER.password)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      killed = true;
      await first.stop('SIGKILL');
      killedAfter = Date.now() - writesStarted;
    })();
    // A writer that fails before the kill fails the test; the watcher still kills the server in finally.
    await Promise.race([Promise.all(writers), watch]).catch(async (error: unknown) => {
      killed = true;
      throw error;
    });
    await watch;
    await Promise.all(writers);

    const all = streams.flatMap((stream) => stream.writes);
    const count = (outcome: Outcome, kind?: Stream['kind']) =>
      streams
        .filter((stream) => !kind || stream.kind === kind)
        .flatMap((stream) => stream.writes)
        .filter((write) => write.outcome === outcome).length;
    console.log(
      `durability: ${all.length} writes run by ${streams.length} concurrent writers in ` +
        `${(killedAfter / 1000).toFixed(1)} s until SIGKILL ` +
        `(${count('acknowledged')} acknowledged: ${count('acknowledged', 'profile')} profile, ` +
        `${count('acknowledged', 'password')} password; ${count('unknown')} in flight at SIGKILL; ` +
        `${count('refused')} refused)`,
    );
    expect(count('refused')).toBe(0);

    // Straight after the crash, as the next start will find it: WAL recovery and a clean integrity check.
    const crashed = new Database(path.join(dataDir, 'portal.sqlite'), { fileMustExist: true });
    try {
      expect(crashed.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      crashed.close();
    }

    const second = await startServer();
    let unansweredButStored = 0;
    for (const stream of streams) {
      const user = users[stream.user]!;
      const session = sessions[stream.user]!;
      if (stream.kind === 'profile') {
        // The update answers the stored profile; sending the unchanged country changes nothing else.
        const response = await session.put(`/api/profile/${user.sub}/update`, { country: 'DE' });
        expect(response.status).toBe(200);
        const stored = JSON.parse((await response.json()) as string) as { lastName: string };
        const candidates = acceptable(stream.writes, user.familyName);
        expect(candidates).toContain(stored.lastName);
        if (stored.lastName !== candidates[0]) unansweredButStored += 1;
      } else {
        // The password in force is the last acknowledged one (or one sent after it, unanswered): changing it
        // with that as the current password must work. A wrong guess costs one of the five allowed attempts.
        const candidates = acceptable(stream.writes, user.password);
        let accepted: string | undefined;
        for (const candidate of candidates) {
          const response = await session.put(`/api/password/${user.sub}/change`, {
            OldPassword: candidate,
            NewPassword: `Final-Vt${stream.user}Wz`,
          });
          if (response.ok) {
            accepted = candidate;
            if (candidate !== candidates[0]) unansweredButStored += 1;
            break;
          }
          expect(response.status, await response.text()).toBe(400);
        }
        expect(
          accepted,
          `user ${stream.user}: none of ${candidates.join(', ')} is the password`,
        ).toBeDefined();
      }
    }
    await second.stop('SIGTERM');
    console.log(
      `durability: after the restart every acknowledged write is there (${unansweredButStored} of the ` +
        'writers show a write that was in flight at SIGKILL, stored but never answered)',
    );

    const after = new Database(path.join(dataDir, 'portal.sqlite'), { fileMustExist: true });
    try {
      expect(after.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(after.prepare('SELECT count(*) AS users FROM users').get()).toEqual({ users: USERS + 2 });
    } finally {
      after.close();
    }
  } catch (error) {
    for (const server of servers) if (server.log) console.log(`server output:\n${server.log}`);
    throw error;
  } finally {
    for (const session of sessions) await session.close();
    for (const server of servers) await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
