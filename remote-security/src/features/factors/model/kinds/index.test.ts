import { FACTOR_LABELS, FACTOR_NAMES } from 'shared-auth';
import { FACTOR_KIND_LIST, FACTOR_KIND_NAMES, factorKind, perKind } from './index.js';

describe('the factor kinds registry', () => {
  it("has a descriptor for every factor of the contract, and none for a factor the contract doesn't name", () => {
    expect([...FACTOR_KIND_NAMES].sort()).toEqual([...FACTOR_NAMES].sort());
    expect(new Set(FACTOR_KIND_NAMES).size).toBe(FACTOR_KIND_NAMES.length);
    expect(Object.keys(FACTOR_LABELS).sort()).toEqual([...FACTOR_KIND_NAMES].sort());
  });

  it('finds each kind by its own name', () => {
    for (const name of FACTOR_NAMES) expect(factorKind(name).name).toBe(name);
    expect(FACTOR_KIND_LIST.map((kind) => kind.name)).toEqual(FACTOR_KIND_NAMES);
  });

  it("lists the kinds in the page's order: email, then the authenticator app", () => {
    expect(FACTOR_KIND_NAMES).toEqual(['email', 'googleAuth']);
  });

  it('builds a record with one value per kind', () => {
    expect(perKind((name) => `${name}!`)).toEqual({ email: 'email!', googleAuth: 'googleAuth!' });
  });
});

describe('the kinds', () => {
  it('the authenticator app: listed before it is set up, activated at once, keeps no detail', () => {
    const kind = factorKind('googleAuth');
    expect(kind).toMatchObject({
      listedBeforeEnrolment: true,
      enrolmentStart: 'activatedAtOnce',
      lastFactorCounts: 'tracked',
    });
    expect(kind.entryDetail()).toEqual({});
  });

  it('email: listed once enrolled, a code sent first, keeps the masked address, both counts guard the switch', () => {
    const kind = factorKind('email');
    expect(kind).toMatchObject({
      listedBeforeEnrolment: false,
      enrolmentStart: 'codeSentFirst',
      lastFactorCounts: 'trackedOrRecomputed',
    });
    expect(kind.entryDetail({ maskedEmail: 'a....e@example.com' })).toEqual({
      maskedEmail: 'a....e@example.com',
    });
  });

  it('every kind has its own toasts and confirmation texts', () => {
    for (const event of ['turnedOn', 'turnedOff', 'removed', 'activated'] as const) {
      const texts = FACTOR_KIND_LIST.map((kind) => kind.texts.toasts[event]);
      expect(texts.every((text) => text.length > 0)).toBe(true);
      expect(new Set(texts).size).toBe(texts.length);
    }
    for (const kind of FACTOR_KIND_LIST) {
      const { dialogs, turnOffRemovesText } = kind.texts;
      for (const { title, text } of [dialogs.turnOff, dialogs.remove]) {
        expect(title).toMatch(/\?$/);
        expect(text.length).toBeGreaterThan(0);
      }
      expect(turnOffRemovesText).not.toBe(dialogs.turnOff.text);
    }
  });
});
