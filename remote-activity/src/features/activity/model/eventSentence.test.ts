import { ACTIVITY_EVENT_KINDS, type ActivityEventKind } from 'shared-auth';
import { eventSentence } from './eventSentence.js';

describe('eventSentence', () => {
  it.each<[ActivityEventKind, string | null, string]>([
    ['signed-in', 'password', 'Signed in with your password'],
    ['signed-in', 'password-and-code', 'Signed in with your password and a code'],
    ['signed-in', 'passkey', 'Signed in with a passkey'],
    ['signed-in', 'recovery-code', 'Signed in with a recovery code'],
    ['sign-in-failed', 'wrong-password', 'Failed sign-in: wrong password'],
    ['sign-in-failed', 'wrong-code', 'Failed sign-in: wrong code'],
    ['sign-in-failed', 'locked', 'Failed sign-in: too many attempts, sign-in locked for a while'],
    ['signed-out', null, 'Signed out'],
    ['password-changed', null, 'Password changed'],
    ['password-reset', null, 'Password reset'],
    ['method-added', 'googleAuth', '2-step method added: Authenticator app'],
    ['method-added', 'passkey', '2-step method added: Passkey'],
    ['method-turned-on', 'email', '2-step method turned on: Email'],
    ['method-turned-off', 'googleAuth', '2-step method turned off: Authenticator app'],
    ['method-removed', 'passkey', '2-step method removed: Passkey'],
    ['recovery-codes-generated', null, 'New recovery codes generated'],
    ['recovery-code-used', 'sign-in', 'Recovery code used to sign in'],
    ['recovery-code-used', 'step-up', "Recovery code used to verify it's you"],
    ['recovery-code-used', 'password-reset', 'Recovery code used to reset your password'],
    ['sessions-signed-out', 'one', 'Sessions signed out: another device'],
    ['sessions-signed-out', 'others', 'Sessions signed out: all other devices'],
    ['sessions-signed-out', 'everywhere', 'Sessions signed out: every device'],
    ['reported-not-me', 'sign-in-failed', 'Reported as not you: a failed sign-in'],
    ['reported-not-me', 'method-added', 'Reported as not you: a 2-step method added'],
  ])('%s (%s): "%s"', (kind, detail, sentence) => {
    expect(eventSentence({ kind, detail })).toBe(sentence);
  });

  it.each<[ActivityEventKind, string]>([
    ['signed-in', 'Signed in'],
    ['sign-in-failed', 'Failed sign-in'],
    ['method-added', '2-step method added'],
    ['recovery-code-used', 'Recovery code used'],
    ['sessions-signed-out', 'Sessions signed out'],
    ['reported-not-me', 'Reported as not you'],
  ])('%s with a detail this page does not know (or none): "%s"', (kind, sentence) => {
    expect(eventSentence({ kind, detail: 'from-a-newer-server' })).toBe(sentence);
    expect(eventSentence({ kind, detail: null })).toBe(sentence);
    // Not a key of the table, though every object has it.
    expect(eventSentence({ kind, detail: 'toString' })).toBe(sentence);
  });

  it('says something of every kind of the contract', () => {
    for (const kind of ACTIVITY_EVENT_KINDS)
      expect(eventSentence({ kind, detail: null })).not.toMatch(/^Security event/);
  });
});
