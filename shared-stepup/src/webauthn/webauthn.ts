/**
 * The browser's passkey ceremonies, for the step-up screens and the Security page's Passkeys section. The WebAuthn
 * library (@simplewebauthn/browser) loads only when a ceremony starts: a chunk of its own, never on a page that
 * shows no passkey.
 */
import type {
  PasskeyAuthenticationBody,
  PasskeyAuthenticationOptions,
  PasskeyRegistrationBody,
  PasskeyRegistrationOptions,
} from 'shared-auth';

/**
 * The browser can run a passkey ceremony: the native check, which @simplewebauthn/browser's
 * browserSupportsWebAuthn() makes too, without loading the library.
 */
export function supportsWebAuthn(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

const load = () => import(/* webpackChunkName: "webauthn" */ '@simplewebauthn/browser');

/** A ceremony that was still running when the screen that asked for it went away is cancelled. */
async function run<T>(ceremony: (lib: Awaited<ReturnType<typeof load>>) => Promise<T>, signal?: AbortSignal) {
  const lib = await load();
  signal?.throwIfAborted();
  const cancel = () => lib.WebAuthnAbortService.cancelCeremony();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await ceremony(lib);
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/** `navigator.credentials.create()` with the server's registration options: the new passkey's answer. */
export function createPasskey(
  options: PasskeyRegistrationOptions['options'],
  signal?: AbortSignal,
): Promise<PasskeyRegistrationBody['response']> {
  return run(
    async (lib) =>
      (await lib.startRegistration({
        optionsJSON: options as unknown as Parameters<typeof lib.startRegistration>[0]['optionsJSON'],
      })) as unknown as PasskeyRegistrationBody['response'],
    signal,
  );
}

/** `navigator.credentials.get()` with the server's step-up options: the passkey's signed answer. */
export function getPasskeyAssertion(
  options: PasskeyAuthenticationOptions['options'],
  signal?: AbortSignal,
): Promise<PasskeyAuthenticationBody['response']> {
  return run(
    async (lib) =>
      (await lib.startAuthentication({
        optionsJSON: options as unknown as Parameters<typeof lib.startAuthentication>[0]['optionsJSON'],
      })) as unknown as PasskeyAuthenticationBody['response'],
    signal,
  );
}

/**
 * What a ceremony's failure means to the holder, from the browser's error name (kept by the library's
 * WebAuthnError) and code:
 * - cancelled: the holder closed the browser's dialog, or it timed out (NotAllowedError, AbortError);
 * - unverified: the authenticator cannot verify the user (fingerprint, face, PIN) as the server requires;
 * - already_registered: this authenticator holds a passkey of the account already (InvalidStateError);
 * - other: anything else the browser refused (a security error, an unsupported algorithm);
 * undefined: not the browser's refusal (an API refusal, a bug).
 */
export type CeremonyFailure = 'cancelled' | 'unverified' | 'already_registered' | 'other';

const USER_VERIFICATION_CODES = new Set([
  'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT',
  'ERROR_AUTO_REGISTER_USER_VERIFICATION_FAILURE',
]);

export function ceremonyFailureOf(error: unknown): CeremonyFailure | undefined {
  if (!(error instanceof Error) || error.name === 'ApiError') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && USER_VERIFICATION_CODES.has(code)) return 'unverified';
  switch (error.name) {
    case 'NotAllowedError':
    case 'AbortError':
      return 'cancelled';
    case 'InvalidStateError':
      return 'already_registered';
    case 'ConstraintError':
      return 'unverified';
    default:
      // The library's WebAuthnError carries a code; any other error is not the browser's refusal.
      return typeof code === 'string' ? 'other' : undefined;
  }
}
