/** Storage conformance (both engines): each throttle's events (ThrottleEvents) and the per-key request windows. */
import { describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/index.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const WINDOW = 60_000;

type ThrottleName = keyof Storage['throttles'];
const THROTTLES: ThrottleName[] = ['passwordChange', 'signIn', 'wrongCodes', 'emailSends'];

/** A key of the throttle: user ids for the per-user ones, anything for the sign-in one. */
async function keyFor(name: ThrottleName): Promise<string> {
  return name === 'signIn' ? `email:${freshId('k')}` : (await insertUser(t.storage)).id;
}

describe.each(THROTTLES)('the %s throttle', (name) => {
  const events = () => t.storage.throttles[name];

  it('reserves up to the limit within the window, atomically, and reads the times back', async () => {
    const key = await keyFor(name);
    expect(await events().reserve(key, NOW, NOW - WINDOW, 2)).toEqual([]);
    expect(await events().reserve(key, NOW + 1, NOW - WINDOW, 2)).toEqual([NOW]);
    // Full: nothing recorded.
    expect(await events().reserve(key, NOW + 2, NOW - WINDOW, 2)).toEqual([NOW, NOW + 1]);
    expect(await events().since(key, NOW - WINDOW)).toEqual([NOW, NOW + 1]);
    expect(await events().since(key, NOW)).toEqual([NOW + 1]);
    // Once the first one left the window, one more is recorded.
    expect(await events().reserve(key, NOW + 3, NOW, 2)).toEqual([NOW + 1]);
    expect(await events().since(key, NOW)).toEqual([NOW + 1, NOW + 3]);
  });

  it('takes back one event, clears a key, prunes old events of every key', async () => {
    const key = await keyFor(name);
    const other = await keyFor(name);
    await events().reserve(key, NOW, NOW - WINDOW, 10);
    await events().reserve(key, NOW, NOW - WINDOW, 10);
    await events().reserve(key, NOW + 5, NOW - WINDOW, 10);
    await events().remove(key, NOW);
    expect(await events().since(key, 0)).toEqual([NOW, NOW + 5]);
    await events().reserve(other, NOW - 10, NOW - WINDOW, 10);
    await events().reserve(other, NOW + 10, NOW - WINDOW, 10);
    expect(await events().prune(NOW)).toBeGreaterThanOrEqual(2);
    expect(await events().since(other, 0)).toEqual([NOW + 10]);
    await events().clear(key);
    expect(await events().since(key, 0)).toEqual([]);
    expect(await events().since(other, 0)).toEqual([NOW + 10]);
  });
});

describe('the throttles are apart', () => {
  it('the wrong-code and email-send events of one user (one table) never count for each other', async () => {
    const { id } = await insertUser(t.storage);
    await t.storage.throttles.wrongCodes.reserve(id, NOW, 0, 5);
    expect(await t.storage.throttles.emailSends.since(id, 0)).toEqual([]);
    await t.storage.throttles.emailSends.clear(id);
    expect(await t.storage.throttles.wrongCodes.since(id, 0)).toEqual([NOW]);
  });
});

describe('request windows', () => {
  it("counts a key's requests in its window, then starts the next window", async () => {
    const key = `ip:${freshId('k')}`;
    const windows = t.storage.requestWindows;
    expect(await windows.hit(key, WINDOW, NOW)).toEqual({ count: 1, endsAt: NOW + WINDOW });
    expect(await windows.hit(key, WINDOW, NOW + 10)).toEqual({ count: 2, endsAt: NOW + WINDOW });
    expect(await windows.hit(key, WINDOW, NOW + WINDOW)).toEqual({ count: 1, endsAt: NOW + 2 * WINDOW });
  });

  it('counts a parallel burst exactly', async () => {
    const key = `ip:${freshId('k')}`;
    const counts = await Promise.all(
      Array.from({ length: 20 }, () => t.storage.requestWindows.hit(key, WINDOW, NOW)),
    );
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('prunes the windows that ended', async () => {
    const ended = `ip:${freshId('k')}`;
    const live = `ip:${freshId('k')}`;
    await t.storage.requestWindows.hit(ended, 10, NOW);
    await t.storage.requestWindows.hit(live, WINDOW, NOW);
    expect(await t.storage.requestWindows.prune(NOW + 10)).toBeGreaterThanOrEqual(1);
    expect(await t.storage.requestWindows.hit(live, WINDOW, NOW + 11)).toMatchObject({ count: 2 });
    expect(await t.storage.requestWindows.hit(ended, WINDOW, NOW + 11)).toEqual({
      count: 1,
      endsAt: NOW + 11 + WINDOW,
    });
  });
});
