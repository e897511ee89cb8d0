/**
 * The authenticator app (Google Authenticator and any RFC 6238 app): a shared secret the page shows as a QR code,
 * and 6-digit codes every 30 seconds. Embedded: the secret is made here and sealed in its row, and the last
 * accepted step is kept so a code is used once. Okta: token:software:totp from provider GOOGLE.
 */
import { HttpError } from '../../http/errors.js';
import { checkTotp, newTotpSecret, totpUri } from '../../crypto/totp.js';
import type { FactorRecord } from '../../storage/factors.js';
import type { EmbeddedFactorContext, FactorKind } from './kind.js';

/** The TOTP step the code belongs to, or null when it is wrong or a replay. */
function totpStep(context: EmbeddedFactorContext, row: FactorRecord, code: string): number | null {
  const { userId } = row;
  let secret: string;
  try {
    if (!row.secretEnc) throw new Error('no secret stored');
    secret = context.box.open(row.secretEnc, userId);
  } catch (error) {
    // A key that does not match the sealed secrets (start-up refuses that) or a damaged row: the caller counted
    // the attempt already, and the answer says the check is unavailable rather than wrong.
    context.log?.error({ err: error, userId }, 'authenticator secret cannot be opened');
    throw new HttpError(503, 'Authenticator codes cannot be checked right now. Try again later.', {
      'Retry-After': '60',
    });
  }
  const result = checkTotp(secret, code, context.now(), row.lastStep);
  return result.ok ? result.step : null;
}

export const authenticatorApp: FactorKind<'googleAuth'> = {
  name: 'googleAuth',
  describe: () => ({ googleAuth: {} }),
  enrolSendsCode: false,
  enrolLogged: 'authenticator enrolment started',

  embedded: {
    /** A new secret, sealed (replacing a pending one); the factor stays pending until a correct code. */
    async enrol({ box }, user) {
      const secret = newTotpSecret();
      return {
        secretEnc: box.seal(secret, user.id),
        answer: { qrLink: totpUri(secret, user.email), secret },
      };
    },
    async check(context, row, code) {
      const step = totpStep(context, row, code);
      return step === null ? { accepted: false } : { accepted: true, step };
    },
  },

  okta: {
    factorType: 'token:software:totp',
    provider: 'GOOGLE',
    enrolBody: () => ({ factorType: 'token:software:totp', provider: 'GOOGLE' }),
    /**
     * Okta makes the secret and answers it in the factor's activation data (`_embedded.activation.sharedSecret`,
     * base32, 30-second steps). Okta's own QR link is an image URL on the org (`_links.qrcode`, which needs the
     * portal's credentials to fetch), so the page gets the otpauth:// URI built from the shared secret instead
     * and draws the QR itself.
     */
    enrolled(factor, user) {
      const activation = (factor?._embedded as { activation?: { sharedSecret?: unknown } } | undefined)
        ?.activation;
      const secret = activation?.sharedSecret;
      if (typeof secret !== 'string' || !/^[A-Z2-7]+=*$/i.test(secret)) {
        throw new Error('the TOTP enrolment has no base32 sharedSecret');
      }
      return { secret, qrLink: totpUri(secret, user.email) };
    },
  },
};
