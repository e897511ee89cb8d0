/**
 * Okta mode's passkeys: the org's `webauthn` factors (identity/okta/webauthn.ts), Okta verifying each answer (the
 * attestation, the assertion's signature, origin and RP ID against its own challenge). The portal keeps what it
 * keeps for its own ceremonies: each challenge Okta issued, hashed, bound to the session that asked and to the
 * factor, single use, 5 minutes, taken before Okta is called, so a replayed answer, one of another session or one
 * naming another factor never reaches Okta.
 *
 * The ceremony runs on the portal's pages only when the org's passkey RP ID covers its host (OKTA_PASSKEY_RP_ID);
 * otherwise "Add a passkey" is Okta's hosted enrolment page and passkeys are not offered for step-up.
 */
import { API_ERRORS, PASSKEYS_MAX, type Passkey } from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import { refusal } from '../http/errors.js';
import type { OktaWebAuthnFactor, OktaWebAuthnFactors } from '../identity/okta/webauthn.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';
import type {
  PasskeyAnswer,
  PasskeyAssertion,
  PasskeyBackend,
  PasskeyRegistration,
  PasskeyRemoval,
  WebAuthnOptionsJson,
} from './backend.js';
import { bindingFor, keepChallenge, PASSKEY_CHALLENGE_TTL_MS, takeChallenge } from './challenges.js';
import { FALLBACK_PASSKEY_NAME } from './naming.js';
import {
  NO_PASSKEY_ERROR,
  PASSKEY_ANSWER_ERROR,
  PASSKEY_HOSTED_ENROLMENT_ERROR,
  PASSKEY_ORG_REFUSED_ERROR,
  PASSKEY_ORG_RP_MISMATCH_ERROR,
  PASSKEY_RENAME_UNAVAILABLE_ERROR,
  PASSKEY_STEP_UP_UNAVAILABLE_ERROR,
  PASSKEY_UNKNOWN_ERROR,
  PASSKEYS_MAX_ERROR,
  PASSKEYS_UNAVAILABLE_ERROR,
} from './texts.js';

/** The Security page's path in the shell (shell/src/config/pages.ts): Okta's hosted enrolment returns there. */
const SECURITY_PAGE_PATH = '/security';

export interface OktaPasskeyBackendOptions {
  factors: OktaWebAuthnFactors;
  storage: Storage;
  /** OKTA_PASSKEY_RP_ID: set when the org's passkey RP ID covers the portal's host (the ceremony runs here). */
  rpId: string | undefined;
  /** PUBLIC_URL: where Okta's hosted enrolment sends the holder back. */
  publicUrl: string;
  now: () => number;
  log?: { warn(object: object, message: string): void };
}

const refused = (message: string) => refusal(API_ERRORS.passkeyRefused, message);

/** base64url (WebAuthn's JSON) → standard base64 with padding (Okta's schema: "Base64-encoded", its examples). */
function base64Of(value: unknown): string {
  if (typeof value !== 'string' || value === '' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) {
    throw refused(PASSKEY_ANSWER_ERROR);
  }
  return Buffer.from(value, 'base64url').toString('base64');
}

const responseOf = (answer: PasskeyAnswer): Record<string, unknown> =>
  typeof answer.response === 'object' && answer.response !== null
    ? (answer.response as Record<string, unknown>)
    : {};

const byCreated = (a: OktaWebAuthnFactor, b: OktaWebAuthnFactor) =>
  (a.created ?? '').localeCompare(b.created ?? '');

function passkeyOf(factor: OktaWebAuthnFactor): Passkey {
  return {
    id: factor.id,
    name: factor.name ?? FALLBACK_PASSKEY_NAME,
    createdAt: factor.created ?? new Date(0).toISOString(),
    // Okta's UserFactor has no last verification date.
    lastUsedAt: null,
    // Okta does not say whether the credential is backed up.
    synced: false,
  };
}

/**
 * Okta's PublicKeyCredentialCreationOptions (the factor's `_embedded.activation`) as WebAuthn's JSON options.
 * Okta's strings are already base64url (the challenge, the user id, the excluded credential ids): they pass as
 * they are, as Okta's own sign-in widget decodes them. The portal asks for user verification and a discoverable
 * credential when possible, as in embedded mode (stricter than any org setting, so Okta accepts the result).
 */
function creationOptionsOf(activation: Record<string, unknown>): WebAuthnOptionsJson {
  const { challenge, rp, user, pubKeyCredParams, excludeCredentials, authenticatorSelection, attestation } =
    activation as {
      challenge?: unknown;
      rp?: { id?: unknown; name?: unknown };
      user?: { id?: unknown; name?: unknown; displayName?: unknown };
      pubKeyCredParams?: unknown;
      excludeCredentials?: unknown;
      authenticatorSelection?: unknown;
      attestation?: unknown;
    };
  return {
    challenge: String(challenge),
    rp: { id: rp?.id, name: typeof rp?.name === 'string' ? rp.name : 'My Profile' },
    user: { id: user?.id, name: user?.name, displayName: user?.displayName ?? user?.name },
    pubKeyCredParams: Array.isArray(pubKeyCredParams)
      ? pubKeyCredParams
      : [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
        ],
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    excludeCredentials: Array.isArray(excludeCredentials)
      ? (excludeCredentials as { id?: unknown; type?: unknown; transports?: unknown }[]).map((c) => ({
          id: c.id,
          type: 'public-key',
          ...(Array.isArray(c.transports) ? { transports: c.transports } : {}),
        }))
      : [],
    authenticatorSelection: {
      ...(typeof authenticatorSelection === 'object' ? authenticatorSelection : {}),
      residentKey: 'preferred',
      userVerification: 'required',
    },
    attestation: typeof attestation === 'string' ? attestation : 'none',
  };
}

export class OktaPasskeyBackend implements PasskeyBackend {
  readonly kind = 'okta' as const;
  readonly inStorage = false;
  // Okta names a passkey from its authenticator's metadata; no API renames it.
  readonly canRename = false;
  private readonly factors: OktaWebAuthnFactors;

  constructor(private readonly options: OktaPasskeyBackendOptions) {
    this.factors = options.factors;
  }

  /** The ceremony runs on the portal's pages only when the org's passkey RP ID covers its host. */
  get stepUp(): boolean {
    return this.options.rpId !== undefined;
  }

  async enrolment() {
    if (this.options.rpId !== undefined) return { enrolment: 'ceremony' as const };
    const back = encodeURIComponent(new URL(SECURITY_PAGE_PATH, this.options.publicUrl).href);
    const authenticatorId = await this.factors.authenticatorId(this.options.log);
    // Without the authenticator's id (no okta.authenticators.read scope): Okta's own settings page, where the
    // holder adds a security method and comes back by hand.
    const hostedEnrolmentUrl =
      authenticatorId === undefined
        ? `${this.factors.orgUrl}/enduser/settings`
        : `${this.factors.orgUrl}/idp/bootstrap/enroll-authenticator/${encodeURIComponent(authenticatorId)}?redirect_uri=${back}`;
    return { enrolment: 'hosted' as const, hostedEnrolmentUrl };
  }

  private async active(userId: string): Promise<OktaWebAuthnFactor[]> {
    return (await this.factors.list(userId)).filter((f) => f.status === 'ACTIVE').sort(byCreated);
  }

  async list(userId: string): Promise<Passkey[]> {
    // The contract's list holds PASSKEYS_MAX; more (enrolled through Okta itself) show the oldest ones.
    return (await this.active(userId)).slice(0, PASSKEYS_MAX).map(passkeyOf);
  }

  async countUsable(userId: string): Promise<number> {
    return (await this.active(userId)).length;
  }

  private requireCeremony(message: string): string {
    if (this.options.rpId === undefined) throw refusal(API_ERRORS.passkeysUnavailable, message);
    return this.options.rpId;
  }

  /**
   * Okta enrols a new webauthn factor (an earlier pending one deleted first) and hands out its creation options;
   * their RP ID must be the portal's (OKTA_PASSKEY_RP_ID), or the browser would refuse the ceremony: the new
   * factor is deleted again and the holder told. The challenge is kept bound to the session and the factor.
   */
  async registrationOptions(user: User, binding: string): Promise<WebAuthnOptionsJson> {
    const rpId = this.requireCeremony(PASSKEY_HOSTED_ENROLMENT_ERROR);
    if ((await this.countUsable(user.id)) >= PASSKEYS_MAX) {
      throw refusal(API_ERRORS.factorState, PASSKEYS_MAX_ERROR(PASSKEYS_MAX));
    }
    const enrolment = await this.factors.enrol(user.id);
    if ('refused' in enrolment) {
      this.options.log?.warn(
        { userId: user.id, errorCode: enrolment.refused },
        'passkeys: Okta refused a webauthn enrolment: check that the Passkey (FIDO2 WebAuthn) authenticator is active and the authenticator enrollment policy allows it',
      );
      throw refusal(API_ERRORS.passkeysUnavailable, PASSKEY_ORG_REFUSED_ERROR);
    }
    const { challenge } = enrolment.activation;
    if (typeof challenge !== 'string' || challenge === '') {
      await this.factors.remove(user.id, enrolment.factorId);
      throw refusal(
        API_ERRORS.upstreamFailed,
        'The identity service did not answer as expected. Try again in a moment.',
      );
    }
    const options = creationOptionsOf(enrolment.activation);
    const rp = options.rp as { id?: unknown };
    if (rp.id !== rpId) {
      await this.factors.remove(user.id, enrolment.factorId);
      this.options.log?.warn(
        { userId: user.id, orgRpId: rp.id, portalRpId: rpId },
        "passkeys: the org's webauthn creation options name another RP ID than OKTA_PASSKEY_RP_ID: set the Passkey authenticator's custom RP ID to it, or unset OKTA_PASSKEY_RP_ID (hosted enrolment)",
      );
      throw refusal(API_ERRORS.passkeysUnavailable, PASSKEY_ORG_RP_MISMATCH_ERROR);
    }
    await keepChallenge(
      this.options.storage.webauthnChallenges,
      options.challenge,
      'registration',
      user.id,
      bindingFor(binding, enrolment.factorId),
      this.options.now(),
    );
    return options;
  }

  /**
   * The challenge taken first (it names the pending factor it was issued for), then Okta activates that factor
   * with the answer, verifying the attestation itself; any refusal of Okta's is 400 passkey_refused.
   */
  async register(actor: Actor, answer: PasskeyAnswer, binding: string): Promise<PasskeyRegistration> {
    this.requireCeremony(PASSKEY_HOSTED_ENROLMENT_ERROR);
    const userId = actor.user.id;
    const pending = (await this.factors.list(userId)).filter((f) => f.status === 'PENDING_ACTIVATION');
    const bindings = pending.map((f) => bindingFor(binding, f.id));
    const taken = await takeChallenge(
      this.options.storage.webauthnChallenges,
      answer,
      'registration',
      { binding: bindings, userId },
      this.options.now(),
    );
    const factor = pending[bindings.indexOf(taken.binding)] as OktaWebAuthnFactor;
    const response = responseOf(answer);
    const result = await this.factors.activate(userId, factor.id, {
      attestation: base64Of(response.attestationObject),
      clientData: base64Of(response.clientDataJSON),
    });
    if (!result.accepted) throw refused(PASSKEY_ANSWER_ERROR);
    const activated = (await this.factors.list(userId)).find((f) => f.id === factor.id);
    const passkey = passkeyOf(
      activated ?? { ...factor, status: 'ACTIVE', created: new Date(this.options.now()).toISOString() },
    );
    return { name: passkey.name, commit: async () => passkey };
  }

  async rename(): Promise<Passkey> {
    throw refusal(API_ERRORS.passkeysUnavailable, PASSKEY_RENAME_UNAVAILABLE_ERROR);
  }

  /** Checked before the delete: Okta's factors and the portal's rule are never in one transaction. */
  async remove(
    userId: string,
    id: string,
    _tx: Storage | undefined,
    beforeCommit: (removal: PasskeyRemoval) => Promise<void>,
  ): Promise<PasskeyRemoval | undefined> {
    const factor = (await this.factors.list(userId)).find((f) => f.id === id);
    if (!factor) return undefined;
    const removal = { name: factor.name ?? FALLBACK_PASSKEY_NAME, counted: factor.status === 'ACTIVE' };
    await beforeCommit(removal);
    if (!(await this.factors.remove(userId, id))) return undefined;
    return removal;
  }

  /**
   * A step-up challenge from Okta for one of the holder's passkeys. Okta issues a challenge per factor, and the
   * browser's get() takes one challenge: with several passkeys the newest one is offered (Okta's UserFactor has
   * no last-use date to pick the one in use).
   */
  async authenticationOptions(user: User | null, binding: string): Promise<WebAuthnOptionsJson> {
    // The portal's own sign-in pages do not run in Okta mode: only the step-up of a known user asks here.
    if (!user) throw refusal(API_ERRORS.passkeysUnavailable, PASSKEYS_UNAVAILABLE_ERROR);
    const rpId = this.requireCeremony(PASSKEY_STEP_UP_UNAVAILABLE_ERROR);
    const usable = (await this.active(user.id)).filter((f) => f.credentialId !== undefined);
    const factor = usable[usable.length - 1];
    if (!factor) throw refusal(API_ERRORS.factorState, NO_PASSKEY_ERROR);
    const { challenge } = await this.factors.challenge(user.id, factor.id);
    await keepChallenge(
      this.options.storage.webauthnChallenges,
      challenge,
      'authentication',
      user.id,
      bindingFor(binding, factor.id),
      this.options.now(),
    );
    return {
      challenge,
      rpId,
      allowCredentials: [{ id: factor.credentialId, type: 'public-key' }],
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
    };
  }

  /**
   * The challenge taken first (bound to the session and the factor it was issued for); the answer must be that
   * factor's credential; then Okta verifies the signature against its challenge.
   */
  async verifyAssertion(
    answer: PasskeyAnswer,
    binding: string,
    userId: string | null,
  ): Promise<PasskeyAssertion> {
    if (userId === null) throw refusal(API_ERRORS.passkeysUnavailable, PASSKEYS_UNAVAILABLE_ERROR);
    this.requireCeremony(PASSKEY_STEP_UP_UNAVAILABLE_ERROR);
    const active = await this.active(userId);
    const bindings = active.map((f) => bindingFor(binding, f.id));
    const taken = await takeChallenge(
      this.options.storage.webauthnChallenges,
      answer,
      'authentication',
      { binding: bindings, userId },
      this.options.now(),
    );
    const factor = active[bindings.indexOf(taken.binding)] as OktaWebAuthnFactor;
    if (factor.credentialId !== answer.id) throw refused(PASSKEY_UNKNOWN_ERROR);
    const response = responseOf(answer);
    const result = await this.factors.verify(userId, factor.id, {
      clientData: base64Of(response.clientDataJSON),
      authenticatorData: base64Of(response.authenticatorData),
      signatureData: base64Of(response.signature),
    });
    if (!result.accepted) throw refused(PASSKEY_ANSWER_ERROR);
    // Okta keeps the counter: nothing left for the portal to record.
    return { userId, commit: async () => true };
  }
}
