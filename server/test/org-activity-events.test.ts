/**
 * Okta mode's activity mapping (src/activity/org-events.ts), event type by event type: the System Log's events as
 * Okta shapes them mapped to the portal's kinds and details, described as embedded mode describes its own (the same
 * User-Agent parser, the same offline country database, the address coarse), and what is skipped: unknown types,
 * other outcomes, another user's account, events the list does not show. No storage, no org: the unit project.
 */
import { describe, expect, it } from 'vitest';
import { authenticatorOf, mapOrgEvents } from '../src/activity/org-events.js';
import { CountryDatabase } from '../src/clients/country.js';
import { ClientDescriber } from '../src/clients/describe.js';

const ADA = '00uAdaLovelace000001';
const BOB = '00uBobBabbage0000001';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const describer = new ClientDescriber(CountryDatabase.shared());

const user = (id: string) => ({ id, type: 'User', alternateId: `${id}@example.com`, displayName: 'Someone' });
const enrolment = (displayName: string) => ({
  id: 'pfd0000000000000001',
  type: 'AuthenticatorEnrollment',
  alternateId: 'unknown',
  displayName,
});
const SERVICE_APP = {
  id: '0oaService',
  type: 'PublicClientApp',
  alternateId: '0oaService',
  displayName: 'Portal',
};

let uuids = 0;
/** An event as Okta answers it; by default Ada's, from Firefox on Linux at a GB address. */
function event(eventType: string, fields: Record<string, unknown> = {}) {
  uuids += 1;
  return {
    uuid: `0000000${uuids}-0000-4000-8000-000000000000`,
    published: '2026-11-20T10:00:00.000Z',
    eventType,
    version: '0',
    severity: 'INFO',
    actor: user(ADA),
    client: {
      userAgent: { rawUserAgent: FIREFOX_LINUX, os: 'Linux', browser: 'FIREFOX' },
      ipAddress: '81.2.69.160',
      geographicalContext: { country: 'United Kingdom' },
    },
    outcome: { result: 'SUCCESS' },
    target: [user(ADA)],
    ...fields,
  };
}

const kinds = (events: unknown[], userId = ADA) =>
  mapOrgEvents(userId, events, describer).map(({ kind, detail }) => `${kind} ${String(detail)}`);

describe("Okta mode's activity: System Log events mapped to the portal's", () => {
  it.each([
    ['user.session.start', {}, 'signed-in password'],
    [
      'user.session.start',
      { outcome: { result: 'FAILURE', reason: 'INVALID_CREDENTIALS' } },
      'sign-in-failed wrong-password',
    ],
    [
      'user.session.start',
      { outcome: { result: 'FAILURE', reason: 'VERIFICATION_ERROR' } },
      'sign-in-failed wrong-password',
    ],
    ['user.session.start', { outcome: { result: 'FAILURE', reason: 'LOCKED_OUT' } }, 'sign-in-failed locked'],
    [
      'user.authentication.auth_via_mfa',
      {
        outcome: { result: 'FAILURE', reason: 'INVALID_CREDENTIALS' },
        target: [user(ADA), enrolment('Google Authenticator')],
      },
      'sign-in-failed wrong-code',
    ],
    [
      'user.authentication.auth_via_mfa',
      {
        outcome: { result: 'FAILURE', reason: 'VERIFICATION_ERROR' },
        target: [user(ADA), enrolment('Password')],
      },
      'sign-in-failed wrong-password',
    ],
    ['user.session.end', {}, 'signed-out null'],
    ['user.session.clear', { actor: SERVICE_APP }, 'sessions-signed-out everywhere'],
    ['user.account.lock', {}, 'sign-in-failed locked'],
    ['user.account.update_password', { actor: SERVICE_APP }, 'password-changed null'],
    ['user.account.reset_password', {}, 'password-reset null'],
    [
      'user.mfa.factor.activate',
      { actor: SERVICE_APP, target: [user(ADA), enrolment('Google Authenticator')] },
      'method-added googleAuth',
    ],
    ['user.mfa.factor.activate', { target: [user(ADA), enrolment('Email')] }, 'method-added email'],
    [
      'user.mfa.factor.activate',
      { target: [user(ADA), enrolment('Passkey (FIDO2 WebAuthn)')] },
      'method-added passkey',
    ],
    [
      'user.mfa.factor.activate',
      { target: [user(ADA), enrolment('Security Key or Biometric')] },
      'method-added passkey',
    ],
    ['user.mfa.factor.activate', { target: [user(ADA), enrolment('Okta Verify')] }, 'method-added null'],
    [
      'user.mfa.factor.deactivate',
      { actor: SERVICE_APP, target: [user(ADA), enrolment('Email')] },
      'method-removed email',
    ],
    ['user.mfa.factor.reset_all', { actor: user(BOB), target: [user(ADA)] }, 'method-removed null'],
  ])('%s %j is "%s"', (eventType, fields, expected) => {
    expect(kinds([event(eventType, fields)])).toEqual([expected]);
  });

  it('describes the client as embedded mode does: bowser, the offline database, the address coarse', () => {
    const [mapped] = mapOrgEvents(ADA, [event('user.session.start')], describer);
    expect(mapped).toEqual({
      id: expect.any(String),
      kind: 'signed-in',
      detail: 'password',
      at: '2026-11-20T10:00:00.000Z',
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      country: 'GB',
      address: '81.2.69.x',
    });
    expect(JSON.stringify(mapped)).not.toContain('81.2.69.160');
  });

  it("takes Okta's country name where the address names none (a private one), and a Date as the SDK gives it", () => {
    const [mapped] = mapOrgEvents(
      ADA,
      [
        event('user.session.start', {
          published: new Date('2026-11-21T08:30:00.000Z'),
          client: { ipAddress: '10.1.2.3', geographicalContext: { country: 'France' } },
        }),
      ],
      describer,
    );
    expect(mapped).toMatchObject({
      at: '2026-11-21T08:30:00.000Z',
      country: 'FR',
      address: '10.1.2.x',
      browser: null,
    });
  });

  it('names the sign-in method from the factors verified in the same Okta session', () => {
    const session = (id: string) => ({ authenticationContext: { externalSessionId: id } });
    const verified = (id: string, name: string) =>
      event('user.authentication.auth_via_mfa', { ...session(id), target: [user(ADA), enrolment(name)] });
    expect(
      kinds([
        verified('s1', 'Google Authenticator'),
        event('user.session.start', session('s1')),
        verified('s2', 'Passkey (FIDO2 WebAuthn)'),
        event('user.session.start', session('s2')),
        verified('s3', 'Password'),
        verified('s3', 'Passkey (FIDO2 WebAuthn)'),
        event('user.session.start', session('s3')),
        verified('s4', 'Password'),
        event('user.session.start', session('s4')),
      ]),
    ).toEqual([
      'signed-in password-and-code',
      'signed-in passkey',
      'signed-in password-and-code',
      'signed-in password',
    ]);
  });

  it("skips what is not this account's: another user's sign-in, a change the holder made to another user", () => {
    expect(
      kinds([
        event('user.session.start', { actor: user(BOB), target: [user(BOB)] }),
        event('user.mfa.factor.reset_all', { target: [user(BOB)] }),
        event('user.account.update_password', { actor: SERVICE_APP, target: [user(BOB)] }),
        event('user.session.end', { actor: user(BOB) }),
      ]),
    ).toEqual([]);
    expect(kinds([event('user.mfa.factor.reset_all', { target: [user(BOB)] })], BOB)).toEqual([
      'method-removed null',
    ]);
  });

  it('skips unknown types, other outcomes and events that do not parse, keeping the order of the rest', () => {
    expect(
      kinds([
        event('user.authentication.sso'),
        event('user.session.start', { outcome: { result: 'FAILURE', reason: 'NETWORK_ZONE_BLACKLIST' } }),
        event('user.session.start', { outcome: { result: 'CHALLENGE' } }),
        event('user.authentication.auth_via_mfa'),
        event('user.mfa.factor.activate', { outcome: { result: 'FAILURE' } }),
        { eventType: 'user.session.start' },
        event('user.session.start', { published: 'yesterday' }),
        'not an event',
        event('user.account.update_password'),
        event('user.session.end'),
      ]),
    ).toEqual(['password-changed null', 'signed-out null']);
  });

  it('reads the authenticator from its name or the method its detail names', () => {
    expect(
      authenticatorOf({ target: [{ type: 'AuthenticatorEnrollment', displayName: 'Email Authentication' }] }),
    ).toBe('email');
    expect(
      authenticatorOf({
        target: [
          { type: 'AuthenticatorEnrollment', displayName: '', detailEntry: { methodTypeUsed: 'Password' } },
        ],
      }),
    ).toBe('password');
    expect(
      authenticatorOf({ target: [{ type: 'User', displayName: 'Google Authenticator' }] }),
    ).toBeUndefined();
  });
});
