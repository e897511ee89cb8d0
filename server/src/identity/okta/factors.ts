/**
 * The Okta backend's 2-step factors: the org's factor enrolments of the portal's kinds (Management API), what
 * differs by kind in the kind's module (kinds/: Okta's factorType and provider, the enrol body and answer).
 */
import type { UserFactor } from '@okta/okta-sdk-nodejs';
import { API_ERRORS, FACTOR_LABELS, type FactorName } from 'shared-auth/contract';
import { normaliseCode } from '../../crypto/code.js';
import { refusal, type HttpError } from '../../http/errors.js';
import type { User } from '../../storage/users.js';
import type { Activation, IdentityFactor, IdentityFactors } from '../factors.js';
import type { AuthenticatorEnrolment, FactorEnrolment } from '../kinds/kind.js';
import { FACTOR_KIND_LIST, kindOf } from '../kinds/registry.js';
import { iso, isStatus, notFound, requireId, wrongCode } from './answers.js';
import type { OktaOrg } from './client.js';

/** One of the user's Okta factors that the portal knows. */
interface KnownFactor {
  type: FactorName;
  id: string;
  status: string;
  created: string | null;
  email: string | undefined;
}

/** Okta's passcodes: 6 digits (TOTP, email), up to 8 for other configurations. */
const OKTA_CODE_DIGITS = [6, 8] as const;

export class OktaFactors implements IdentityFactors {
  // The Management API has no "off" for one factor: setEnabled removes it.
  readonly factorTurnOff = 'removes' as const;

  constructor(private readonly org: OktaOrg) {}

  /**
   * Okta's Google Authenticator (token:software:totp, provider GOOGLE) and email (email, OKTA) factors, pending or
   * active. Other factors the org may have enrolled (Okta Verify, SMS, …) and other statuses are not the portal's
   * to show (an active one still counts as 2-step verification: hasUnmanagedActiveFactor). `enrolledAt` is the
   * factor's `created` ("when the factor was enrolled"), null while pending.
   */
  async listFactors(userId: string): Promise<IdentityFactor[]> {
    return (await this.knownFactors(userId))
      .filter((f) => f.status === 'ACTIVE' || f.status === 'PENDING_ACTIVATION')
      .map((f) => ({
        type: f.type,
        status: f.status as IdentityFactor['status'],
        enrolledAt: f.status === 'ACTIVE' ? f.created : null,
      }));
  }

  /**
   * Any ACTIVE factor of another kind than the portal's two (Okta Verify push or TOTP, SMS, voice, a security key,
   * Google Authenticator under another provider…): the holder has 2-step verification, which the portal can
   * neither show nor check. Passkeys (webauthn) count here too, on purpose: the passkeys domain shows and checks them
   * (passkeys/okta-backend.ts), but the factors' rules (StepUpService) count only the passkeys of the portal's
   * storage, so without this a password change of a holder whose only method is an Okta passkey would need no
   * step-up at all. Here they ask for a fresh sign-in or a step-up grant, which a passkey step-up gives; they are
   * never counted twice (this is only read when StepUpService found no active method).
   */
  async hasUnmanagedActiveFactor(userId: string): Promise<boolean> {
    return (await this.allFactors(userId)).some(
      (factor) => String(factor.status) === 'ACTIVE' && factorNameOf(factor) === undefined,
    );
  }

  /**
   * Enrols the factor of this kind (kinds/: Okta's factorType and provider). A pending enrolment is removed
   * first, so what the page shows (the authenticator app's secret) is always what Okta will check; a kind may
   * have Okta send a pending enrolment a new code instead (email to the same address: resend).
   */
  async enrol(user: User, type: FactorName): Promise<FactorEnrolment> {
    const kind = kindOf(type).okta;
    const existing = await this.knownFactors(user.id, type);
    this.refuseIfActive(existing, type);
    try {
      for (const pending of existing.filter((f) => f.status === 'PENDING_ACTIVATION')) {
        const resendUserFactor = kind.resend?.(pending, user);
        if (resendUserFactor === undefined) continue;
        await this.org.call('resendEnrollFactor', 'once', (c) =>
          c.userFactorApi.resendEnrollFactor({
            userId: requireId(user.id),
            factorId: pending.id,
            resendUserFactor,
          }),
        );
        return kind.enrolled(undefined, user);
      }
      for (const factor of existing) await this.unenroll(user.id, factor.id);
      const factor = await this.org.call('enrollFactor', 'once', (c) =>
        c.userFactorApi.enrollFactor({
          userId: requireId(user.id),
          body: kind.enrolBody(user) as UserFactor,
        }),
      );
      return kind.enrolled(factor, user);
    } catch (error) {
      throw this.enrolRefusal(error, type) ?? this.org.unexpected('enrollFactor', error);
    }
  }

  /** The authenticator app's enrolment (enrol, for a caller that knows the kind). */
  async enrollAuthenticator(user: User): Promise<AuthenticatorEnrolment> {
    return (await this.enrol(user, 'googleAuth')) as AuthenticatorEnrolment;
  }

  /** Email's enrolment: Okta sends the activation code (again, for a pending one). */
  async enrollEmail(user: User): Promise<void> {
    await this.enrol(user, 'email');
  }
  /**
   * Activates the pending factor with its code (Okta makes it ACTIVE at once); undefined when Okta says the code
   * is wrong or used. `commit` has nothing left to store.
   */
  async activate(userId: string, type: FactorName, code: string): Promise<Activation | undefined> {
    const factors = await this.knownFactors(userId, type);
    const pending = factors.find((f) => f.status === 'PENDING_ACTIVATION');
    const notPending = () =>
      refusal(
        API_ERRORS.factorState,
        factors.some((f) => f.status === 'ACTIVE')
          ? `${FACTOR_LABELS[type]} is already set up`
          : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    if (!pending) throw notPending();
    const passCode = normaliseCode(code, OKTA_CODE_DIGITS);
    if (passCode === undefined) return undefined;
    let activated: UserFactor;
    try {
      activated = await this.org.call('activateFactor', 'once', (c) =>
        c.userFactorApi.activateFactor({
          userId: requireId(userId),
          factorId: pending.id,
          body: { passCode },
        }),
      );
    } catch (error) {
      if (wrongCode(error)) return undefined;
      if (notFound(error)) throw notPending();
      throw this.org.unexpected('activateFactor', error);
    }
    const factor: IdentityFactor = {
      type,
      status: 'ACTIVE',
      enrolledAt:
        activated.created === undefined ? (pending.created ?? iso(new Date())) : iso(activated.created),
    };
    return { commit: async () => factor };
  }

  /** Asks Okta to send a verification code to the account's active email factor (a challenge). */
  async sendVerificationEmail(user: User): Promise<void> {
    const userId = user.id;
    const factor = await this.activeFactor(userId, 'email');
    try {
      const answer = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId: factor.id }),
      );
      if (answer.factorResult !== 'CHALLENGE') {
        throw new Error(`an email challenge answered factorResult ${String(answer.factorResult)}`);
      }
    } catch (error) {
      if (notFound(error)) throw notSetUp('email');
      throw this.org.unexpected('verifyFactor', error);
    }
  }

  /** Checks a code of the active factor with Okta: true on SUCCESS, false when the code is wrong or used. */
  async verify(userId: string, type: FactorName, code: string): Promise<boolean> {
    const factor = await this.activeFactor(userId, type);
    const passCode = normaliseCode(code, OKTA_CODE_DIGITS);
    if (passCode === undefined) return false;
    try {
      const answer = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId: factor.id, body: { passCode } }),
      );
      return answer.factorResult === 'SUCCESS';
    } catch (error) {
      if (wrongCode(error)) return false;
      if (notFound(error)) throw notSetUp(type);
      throw this.org.unexpected('verifyFactor', error);
    }
  }

  /**
   * Okta's Management API has no "off" for one factor (a factor is enrolled or not; only the org's policies decide
   * when Okta asks for it). Off removes the enrolment, so Okta's own sign-in stops asking for it too; turning it
   * on again means setting it up again (refused here: there is no turned-off factor to turn on).
   */
  async setEnabled(userId: string, type: FactorName, enabled: boolean): Promise<IdentityFactor | undefined> {
    if (!enabled) {
      await this.remove(userId, type);
      return undefined;
    }
    const active = (await this.listFactors(userId)).find((f) => f.type === type && f.status === 'ACTIVE');
    if (!active) throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
    return active;
  }

  /** Unenrols the factor (active or pending) in Okta. */
  async remove(userId: string, type: FactorName): Promise<void> {
    for (const factor of await this.knownFactors(userId, type)) await this.unenroll(userId, factor.id);
  }

  /** Every factor Okta holds for the user, of any kind and status; [] for an unknown user. */
  private allFactors(userId: string): Promise<UserFactor[]> {
    return listUserFactors(this.org, userId);
  }

  /** The user's factors of the portal's two kinds (of one kind when `type` is given); [] for an unknown user. */
  private async knownFactors(userId: string, type?: FactorName): Promise<KnownFactor[]> {
    const known: KnownFactor[] = [];
    for (const factor of await this.allFactors(userId)) {
      const name = factorNameOf(factor);
      if (name === undefined || factor.id === undefined || (type !== undefined && name !== type)) continue;
      const email = (factor.profile as { email?: unknown } | undefined)?.email;
      known.push({
        type: name,
        id: factor.id,
        status: String(factor.status),
        created: factor.created === undefined ? null : iso(factor.created),
        email: typeof email === 'string' ? email : undefined,
      });
    }
    return known;
  }

  private async activeFactor(userId: string, type: FactorName): Promise<KnownFactor> {
    const active = (await this.knownFactors(userId, type)).find((f) => f.status === 'ACTIVE');
    if (!active) throw notSetUp(type);
    return active;
  }

  private refuseIfActive(factors: KnownFactor[], type: FactorName): void {
    if (factors.some((f) => f.status === 'ACTIVE')) {
      throw refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
  }

  /** An enrolment Okta refused because the factor is set up meanwhile (E0000001), or the user is gone. */
  private enrolRefusal(error: unknown, type: FactorName): HttpError | undefined {
    if (isStatus(error, 400, 'E0000001')) {
      return refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
    if (notFound(error)) return refusal(API_ERRORS.notFound, 'The account no longer exists');
    return undefined;
  }

  /** DELETE of one factor: repeatable (the end state is the same), and a factor already gone is fine. */
  private async unenroll(userId: string, factorId: string): Promise<void> {
    try {
      await this.org.call('unenrollFactor', 'repeatable', (c) =>
        c.userFactorApi.unenrollFactor({ userId: requireId(userId), factorId }),
      );
    } catch (error) {
      if (notFound(error)) return;
      throw this.org.unexpected('unenrollFactor', error);
    }
  }
}

/** The portal's kind of an Okta factor (its factorType and provider), or undefined for one it does not manage. */
function factorNameOf(factor: UserFactor): FactorName | undefined {
  return FACTOR_KIND_LIST.find(
    ({ okta }) => factor.factorType === okta.factorType && factor.provider === okta.provider,
  )?.name;
}

function notSetUp(type: FactorName): HttpError {
  return refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
}

/** Every factor Okta holds for the user, of any kind and status; [] for an unknown user (the passkeys' list too). */
export async function listUserFactors(org: OktaOrg, userId: string): Promise<UserFactor[]> {
  try {
    return await org.call('listFactors', 'repeatable', async (c) => {
      const all: UserFactor[] = [];
      for await (const factor of await c.userFactorApi.listFactors({ userId: requireId(userId) })) {
        if (factor) all.push(factor);
      }
      return all;
    });
  } catch (error) {
    if (notFound(error)) return [];
    throw org.unexpected('listFactors', error);
  }
}
