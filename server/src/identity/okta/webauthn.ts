/**
 * The Okta org's passkeys: the user's `webauthn` factors (Passkey (FIDO2 WebAuthn) authenticator) through the
 * Management API's Factors operations, and the org's `webauthn` authenticator (its id, for Okta's hosted
 * enrolment page). Plain data in and out: the rules around them (step-up, the challenge kept for the session, the
 * last-method rule, the throttle, the notices) are the passkeys domain's (passkeys/okta-backend.ts).
 *
 * | operation        | Okta                                                                                  |
 * |------------------|---------------------------------------------------------------------------------------|
 * | list             | GET /api/v1/users/{userId}/factors (the `webauthn` ones)                              |
 * | enrol            | DELETE …/factors/{id} (earlier pending ones), POST …/factors {webauthn, FIDO}         |
 * | activate         | POST …/factors/{factorId}/lifecycle/activate {attestation, clientData}                |
 * | remove           | DELETE …/factors/{factorId}                                                            |
 * | challenge        | POST …/factors/{factorId}/verify (no body: Okta answers a challenge)                  |
 * | verify           | POST …/factors/{factorId}/verify {clientData, authenticatorData, signatureData}       |
 * | authenticatorId  | GET /api/v1/authenticators (key `webauthn`; read once; needs okta.authenticators.read) |
 */
import type { UserFactor } from '@okta/okta-sdk-nodejs';
import { API_ERRORS } from 'shared-auth/contract';
import { refusal } from '../../http/errors.js';
import { iso, isStatus, notFound, requireId } from './answers.js';
import { isOktaApiError, type OktaOrg } from './client.js';
import { listUserFactors } from './factors.js';

/** Okta's factorType and provider of a passkey. */
export const WEBAUTHN_FACTOR = { factorType: 'webauthn', provider: 'FIDO' } as const;

/** One of the user's webauthn factors as Okta lists it. */
export interface OktaWebAuthnFactor {
  id: string;
  status: string;
  /** profile.authenticatorName: set by Okta from the authenticator's AAGUID metadata; undefined when absent. */
  name: string | undefined;
  /** profile.credentialId (base64url); undefined while pending. */
  credentialId: string | undefined;
  /** When it was enrolled (ISO); null when Okta did not say. */
  created: string | null;
}

/** A started enrolment: the pending factor and Okta's PublicKeyCredentialCreationOptions (`_embedded.activation`). */
export interface OktaWebAuthnEnrolment {
  factorId: string;
  activation: Record<string, unknown>;
}

/** What Okta answered to a ceremony's answer: accepted, or refused (a wrong challenge, origin, signature…). */
export type OktaCeremonyResult = { accepted: true } | { accepted: false; errorCode: string | undefined };

const isWebAuthn = (factor: UserFactor) =>
  factor.factorType === WEBAUTHN_FACTOR.factorType && factor.provider === WEBAUTHN_FACTOR.provider;

/** Okta's refusal of a ceremony's answer: 400 (validation) or 403 (E0000068 and the like). */
const ceremonyRefused = (error: unknown) =>
  isOktaApiError(error) && (error.status === 400 || error.status === 403);

export class OktaWebAuthnFactors {
  /** The org's webauthn authenticator id, once read (it does not change while the org keeps the authenticator). */
  private authenticator: Promise<string | undefined> | undefined;

  constructor(private readonly org: OktaOrg) {}

  /** The org's URL (the hosted enrolment page is on it). */
  get orgUrl(): string {
    return this.org.orgUrl;
  }

  /** The user's webauthn factors, any status; [] for an unknown user. */
  async list(userId: string): Promise<OktaWebAuthnFactor[]> {
    const factors = await listUserFactors(this.org, userId);
    return factors
      .filter((factor) => isWebAuthn(factor) && factor.id !== undefined)
      .map((factor) => {
        const profile = (factor.profile ?? {}) as { authenticatorName?: unknown; credentialId?: unknown };
        return {
          id: factor.id as string,
          status: String(factor.status),
          name:
            typeof profile.authenticatorName === 'string' && profile.authenticatorName !== ''
              ? profile.authenticatorName
              : undefined,
          credentialId:
            typeof profile.credentialId === 'string' && profile.credentialId !== ''
              ? profile.credentialId
              : undefined,
          created: factor.created === undefined ? null : iso(factor.created),
        };
      });
  }

  /**
   * Starts an enrolment: the user's earlier pending webauthn factors are deleted first (a ceremony abandoned
   * leaves one PENDING_ACTIVATION behind), then Okta makes a new one with its creation options.
   */
  async enrol(userId: string): Promise<OktaWebAuthnEnrolment | { refused: string | undefined }> {
    for (const pending of (await this.list(userId)).filter((f) => f.status === 'PENDING_ACTIVATION')) {
      await this.remove(userId, pending.id);
    }
    let factor: UserFactor;
    try {
      factor = await this.org.call('enrollFactor', 'once', (c) =>
        c.userFactorApi.enrollFactor({
          userId: requireId(userId),
          body: { ...WEBAUTHN_FACTOR } as UserFactor,
        }),
      );
    } catch (error) {
      if (notFound(error)) throw refusal(API_ERRORS.notFound, 'The account no longer exists');
      // The org does not offer the factor to this user (400 E0000001 "factorType", 403 E0000071 "Unsupported
      // factor"): the Passkey authenticator is off, or the enrolment policy does not allow it.
      if (isStatus(error, 400) || isStatus(error, 403))
        return { refused: isOktaApiError(error) ? String(error.errorCode) : undefined };
      throw this.org.unexpected('enrollFactor', error);
    }
    const activation = (factor._embedded as { activation?: unknown } | undefined)?.activation;
    if (factor.id === undefined || typeof activation !== 'object' || activation === null) {
      throw this.org.unexpected(
        'enrollFactor',
        new Error('a webauthn enrolment without _embedded.activation'),
      );
    }
    return { factorId: factor.id, activation: activation as Record<string, unknown> };
  }

  /** Activates a pending factor with the browser's answer (both base64, as Okta's schema says). */
  async activate(
    userId: string,
    factorId: string,
    answer: { attestation: string; clientData: string },
  ): Promise<OktaCeremonyResult> {
    try {
      await this.org.call('activateFactor', 'once', (c) =>
        c.userFactorApi.activateFactor({ userId: requireId(userId), factorId, body: { ...answer } }),
      );
      return { accepted: true };
    } catch (error) {
      if (ceremonyRefused(error) || notFound(error)) {
        return { accepted: false, errorCode: isOktaApiError(error) ? String(error.errorCode) : undefined };
      }
      throw this.org.unexpected('activateFactor', error);
    }
  }

  /** Deletes one factor (repeatable: the end state is the same); false when it is already gone. */
  async remove(userId: string, factorId: string): Promise<boolean> {
    try {
      await this.org.call('unenrollFactor', 'repeatable', (c) =>
        c.userFactorApi.unenrollFactor({ userId: requireId(userId), factorId }),
      );
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw this.org.unexpected('unenrollFactor', error);
    }
  }

  /**
   * Asks Okta for an assertion challenge of an active factor (a verify without a body): its
   * `_embedded.challenge` (the challenge string and what else Okta sends with it).
   */
  async challenge(userId: string, factorId: string): Promise<{ challenge: string }> {
    let answer: { _embedded?: unknown; factorResult?: unknown };
    try {
      answer = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId }),
      );
    } catch (error) {
      if (notFound(error)) throw refusal(API_ERRORS.factorState, 'This passkey is no longer set up');
      throw this.org.unexpected('verifyFactor', error);
    }
    const embedded = answer._embedded as { challenge?: { challenge?: unknown } } | undefined;
    const challenge = embedded?.challenge?.challenge;
    if (typeof challenge !== 'string' || challenge === '') {
      throw this.org.unexpected(
        'verifyFactor',
        new Error('a webauthn challenge without _embedded.challenge'),
      );
    }
    return { challenge };
  }

  /** Verifies an assertion (all three base64) against the challenge Okta issued for the factor. */
  async verify(
    userId: string,
    factorId: string,
    answer: { clientData: string; authenticatorData: string; signatureData: string },
  ): Promise<OktaCeremonyResult> {
    try {
      const result = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId, body: { ...answer } }),
      );
      return result.factorResult === 'SUCCESS'
        ? { accepted: true }
        : { accepted: false, errorCode: String(result.factorResult) };
    } catch (error) {
      if (ceremonyRefused(error) || notFound(error)) {
        return { accepted: false, errorCode: isOktaApiError(error) ? String(error.errorCode) : undefined };
      }
      throw this.org.unexpected('verifyFactor', error);
    }
  }

  /**
   * The id of the org's `webauthn` authenticator (Okta's hosted enrolment page is per authenticator), read once
   * and kept; undefined when the org has none or the service app may not read authenticators (the
   * `okta.authenticators.read` scope): the caller then falls back to Okta's own settings page. A failure is not
   * kept, so a scope granted later is picked up.
   */
  async authenticatorId(log?: { warn(object: object, message: string): void }): Promise<string | undefined> {
    this.authenticator ??= this.readAuthenticatorId(log);
    const id = await this.authenticator;
    if (id === undefined) this.authenticator = undefined;
    return id;
  }

  private async readAuthenticatorId(log?: {
    warn(object: object, message: string): void;
  }): Promise<string | undefined> {
    try {
      return await this.org.call('listAuthenticators', 'repeatable', async (c) => {
        for await (const authenticator of await c.authenticatorApi.listAuthenticators()) {
          if (authenticator?.key === 'webauthn' && authenticator.id !== undefined) return authenticator.id;
        }
        return undefined;
      });
    } catch (error) {
      log?.warn(
        { err: error, status: isOktaApiError(error) ? error.status : undefined },
        "passkeys: could not read the org's webauthn authenticator (GET /api/v1/authenticators needs the okta.authenticators.read scope in OKTA_SCOPES): Add a passkey sends the holder to Okta's settings page instead",
      );
      return undefined;
    }
  }
}
