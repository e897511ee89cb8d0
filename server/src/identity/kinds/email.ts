/**
 * Verification by email: a code mailed to the account's address. Embedded: the portal makes, mails and keeps the
 * codes itself (embedded/email-codes.ts, one per user, used once). Okta: the org's email factor (provider OKTA),
 * Okta sending the codes.
 */
import type { ResendUserFactor } from '@okta/okta-sdk-nodejs';
import { maskEmail } from 'shared-auth/contract';
import type { FactorKind } from './kind.js';

export const email: FactorKind<'email'> = {
  name: 'email',
  describe: (user) => ({ email: { maskedEmail: maskEmail(user.email) } }),
  enrolSendsCode: true,
  enrolLogged: 'email enrolment code sent',

  embedded: {
    /** Mails an activation code; the row keeps no secret. */
    async enrol({ emailCodes, store }, user) {
      await emailCodes.send(user, 'activate', store);
      return { secretEnc: null, answer: { status: 'PENDING_ACTIVATION' } };
    },
    async check({ emailCodes, store }, row, code, purpose) {
      const used = await emailCodes.use(row.userId, purpose, code, store);
      return used ? { accepted: true, step: null } : { accepted: false };
    },
    async removed({ store }, userId) {
      await store.deleteEmailCode(userId);
    },
  },

  okta: {
    factorType: 'email',
    provider: 'OKTA',
    enrolBody: (user) => ({ factorType: 'email', provider: 'OKTA', profile: { email: user.email } }),
    enrolled: () => ({ status: 'PENDING_ACTIVATION' }),
    /** A pending enrolment for the same address gets a new code (resend) instead of a new enrolment. */
    resend: (pending, user) =>
      pending.email === user.email
        ? // The spec maps ResendUserFactor's `email` to UserFactorEmail (provider, profile); the SDK's type has
          // factorType only.
          ({ factorType: 'email', provider: 'OKTA', profile: { email: user.email } } as ResendUserFactor)
        : undefined,
  },
};
