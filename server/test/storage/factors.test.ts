/** Storage conformance (both engines): 2-step factors and pending email codes (FactorStore). */
import { describe, expect, it } from 'vitest';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);

describe('factors', () => {
  it('goes pending → active → inactive, and a second activation finds nothing pending', async () => {
    const { id } = await insertUser(t.storage);
    const factors = t.storage.factors;
    await factors.putPending(id, 'googleAuth', 'sealed-secret', NOW);
    expect(await factors.factor(id, 'googleAuth')).toEqual({
      userId: id,
      type: 'googleAuth',
      status: 'PENDING_ACTIVATION',
      secretEnc: 'sealed-secret',
      lastStep: null,
      enrolledAt: null,
    });
    expect(await factors.activate(id, 'googleAuth', 42, NOW + 1000)).toBe(true);
    expect(await factors.activate(id, 'googleAuth', 43, NOW + 2000)).toBe(false);
    expect(await factors.factor(id, 'googleAuth')).toMatchObject({
      status: 'ACTIVE',
      lastStep: 42,
      enrolledAt: new Date(NOW + 1000).toISOString(),
    });
    await factors.setStatus(id, 'googleAuth', 'INACTIVE', NOW + 3000);
    expect((await factors.factor(id, 'googleAuth'))?.status).toBe('INACTIVE');
  });

  it('lists a user’s factors, resets one enrolled again, deletes one', async () => {
    const { id } = await insertUser(t.storage);
    const factors = t.storage.factors;
    await factors.putPending(id, 'email', null, NOW);
    await factors.putPending(id, 'googleAuth', 'first', NOW);
    await factors.activate(id, 'googleAuth', null, NOW);
    await factors.putPending(id, 'googleAuth', 'second', NOW + 1);
    expect(
      (await factors.factors(id)).map(({ type, status, secretEnc }) => [type, status, secretEnc]),
    ).toEqual(
      expect.arrayContaining([
        ['email', 'PENDING_ACTIVATION', null],
        ['googleAuth', 'PENDING_ACTIVATION', 'second'],
      ]),
    );
    await factors.deleteFactor(id, 'email');
    expect(await factors.factor(id, 'email')).toBeUndefined();
    expect(await factors.factors(freshId())).toEqual([]);
  });

  it('moves the last accepted step only forwards', async () => {
    const { id } = await insertUser(t.storage);
    const factors = t.storage.factors;
    await factors.putPending(id, 'googleAuth', 'secret', NOW);
    await factors.activate(id, 'googleAuth', null, NOW);
    expect(await factors.setLastStep(id, 'googleAuth', 10)).toBe(true);
    expect(await factors.setLastStep(id, 'googleAuth', 10)).toBe(false);
    expect(await factors.setLastStep(id, 'googleAuth', 9)).toBe(false);
    expect(await factors.setLastStep(id, 'googleAuth', 11)).toBe(true);
    expect((await factors.factor(id, 'googleAuth'))?.lastStep).toBe(11);
  });
});

describe('email codes', () => {
  it('keeps one code per user, replaced by the next, consumed once', async () => {
    const { id } = await insertUser(t.storage);
    const factors = t.storage.factors;
    const code = {
      userId: id,
      purpose: 'activate' as const,
      codeHash: 'h1',
      sentAt: NOW,
      expiresAt: NOW + 600_000,
    };
    await factors.putEmailCode(code);
    expect(await factors.emailCode(id)).toEqual(code);
    await factors.putEmailCode({ ...code, purpose: 'verify', codeHash: 'h2', sentAt: NOW + 1 });
    expect(await factors.emailCode(id)).toMatchObject({ purpose: 'verify', codeHash: 'h2', sentAt: NOW + 1 });
    expect(await factors.consumeEmailCode(id, 'h1')).toBe(false);
    expect(await factors.consumeEmailCode(id, 'h2')).toBe(true);
    expect(await factors.consumeEmailCode(id, 'h2')).toBe(false);
    expect(await factors.emailCode(id)).toBeUndefined();
  });

  it('deletes a code, and prunes the expired ones only', async () => {
    const a = await insertUser(t.storage);
    const b = await insertUser(t.storage);
    const c = await insertUser(t.storage);
    const factors = t.storage.factors;
    const code = (userId: string, expiresAt: number) => ({
      userId,
      purpose: 'verify' as const,
      codeHash: 'h',
      sentAt: NOW,
      expiresAt,
    });
    await factors.putEmailCode(code(a.id, NOW + 10));
    await factors.putEmailCode(code(b.id, NOW + 20));
    await factors.putEmailCode(code(c.id, NOW + 30));
    await factors.deleteEmailCode(c.id);
    expect(await factors.emailCode(c.id)).toBeUndefined();
    expect(await factors.pruneCodes(NOW + 10)).toBeGreaterThanOrEqual(1);
    expect(await factors.emailCode(a.id)).toBeUndefined();
    expect(await factors.emailCode(b.id)).toBeDefined();
  });
});
