import { addedLabel, canRemove, countActive, isSwitchDisabled } from './factors.js';

describe('factor counts', () => {
  it('counts googleAuth and email entries with status ACTIVE', () => {
    expect(countActive({})).toBe(0);
    expect(countActive({ googleAuth: { status: 'ACTIVE', enrolledDate: null } })).toBe(1);
    expect(
      countActive({
        googleAuth: { status: 'INACTIVE', enrolledDate: null },
        email: { status: 'ACTIVE', enrolledDate: null, maskedEmail: 'a....e@x.org' },
      }),
    ).toBe(1);
  });

  it("shows 'remove' only with 2 or more active factors", () => {
    expect(canRemove(1)).toBe(false);
    expect(canRemove(2)).toBe(true);
  });
});

describe('switch disabled rules', () => {
  const facts = { loading: false, on: true, factorsCount: 2, activeCount: 2 };

  it('is disabled while loading, whatever the counts', () => {
    expect(isSwitchDisabled('googleAuth', { ...facts, loading: true })).toBe(true);
    expect(isSwitchDisabled('email', { ...facts, loading: true, on: false })).toBe(true);
  });

  it('is enabled when the factor is off', () => {
    expect(isSwitchDisabled('googleAuth', { ...facts, on: false, factorsCount: 0, activeCount: 0 })).toBe(
      false,
    );
    expect(isSwitchDisabled('email', { ...facts, on: false, factorsCount: 1, activeCount: 1 })).toBe(false);
  });

  it('authenticator: disabled when on and fewer than 2 factors are active', () => {
    expect(isSwitchDisabled('googleAuth', { ...facts, factorsCount: 1 })).toBe(true);
    expect(isSwitchDisabled('googleAuth', facts)).toBe(false);
  });

  it('email: disabled when on and the tracked count or the recomputed count is below 2', () => {
    expect(isSwitchDisabled('email', facts)).toBe(false);
    expect(isSwitchDisabled('email', { ...facts, factorsCount: 1 })).toBe(true);
    expect(isSwitchDisabled('email', { ...facts, activeCount: 1 })).toBe(true);
  });
});

describe('dates', () => {
  it("reads 'Added {date}' in en-US short form", () => {
    expect(addedLabel('2026-03-07T12:00:00.000Z')).toBe('Added Mar 7, 2026');
    expect(addedLabel(null)).toBeUndefined();
    expect(addedLabel('not a date')).toBeUndefined();
  });
});
