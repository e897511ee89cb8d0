import { waitFor } from '@testing-library/react';
import { startRegistration, WebAuthnAbortService } from '@simplewebauthn/browser';
import { ApiError } from 'shared-auth';
import { ceremonyFailureOf, createPasskey, supportsWebAuthn } from './webauthn.js';

jest.mock('@simplewebauthn/browser', () => ({
  startAuthentication: jest.fn(),
  startRegistration: jest.fn(),
  WebAuthnAbortService: { cancelCeremony: jest.fn() },
}));
const registration = jest.mocked(startRegistration);
const cancelCeremony = jest.mocked(WebAuthnAbortService.cancelCeremony);

const withCode = (name: string, code: string) => Object.assign(new Error('refused'), { name, code });

describe('webauthn', () => {
  afterEach(() => {
    delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
  });

  it('tells a browser with WebAuthn by the native check', () => {
    expect(supportsWebAuthn()).toBe(false);
    Object.defineProperty(window, 'PublicKeyCredential', {
      value: function PublicKeyCredential() {},
      configurable: true,
    });
    expect(supportsWebAuthn()).toBe(true);
  });

  it('runs the registration with the server options, and cancels the ceremony when the signal aborts', async () => {
    let finish: (value: unknown) => void = () => undefined;
    registration.mockReturnValue(new Promise((resolve) => (finish = resolve)) as never);
    const controller = new AbortController();
    const options = { challenge: 'abc' };
    const created = createPasskey(options, controller.signal);
    // The library loads first (a chunk of its own in the build).
    await waitFor(() => expect(registration).toHaveBeenCalledWith({ optionsJSON: options }));
    controller.abort();
    expect(cancelCeremony).toHaveBeenCalledTimes(1);
    finish({ id: 'cred-1' });
    await expect(created).resolves.toEqual({ id: 'cred-1' });
  });

  it('does not start a ceremony once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createPasskey({ challenge: 'abc' }, controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(registration).not.toHaveBeenCalled();
  });

  it.each([
    ['NotAllowedError', 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY', 'cancelled'],
    ['AbortError', 'ERROR_CEREMONY_ABORTED', 'cancelled'],
    ['ConstraintError', 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT', 'unverified'],
    ['InvalidStateError', 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED', 'already_registered'],
    ['SecurityError', 'ERROR_INVALID_RP_ID', 'other'],
  ])('reads %s (%s) as %s', (name, code, meaning) => {
    expect(ceremonyFailureOf(withCode(name, code))).toBe(meaning);
  });

  it('an API refusal or a bug is not a ceremony failure', () => {
    expect(ceremonyFailureOf(new ApiError('refused', 400, 'passkey_refused'))).toBeUndefined();
    expect(ceremonyFailureOf(new TypeError('bug'))).toBeUndefined();
    expect(ceremonyFailureOf('text')).toBeUndefined();
  });
});
