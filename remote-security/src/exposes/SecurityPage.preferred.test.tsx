/**
 * The Security page's default 2-step method (issue 22), by role and label: "Use by default" on each active method
 * that is not the default, the "Default" tag on the one that is, the call and its success message, its refusals,
 * the step-up it may ask for, and the default forgotten when its method is turned off or its last passkey removed.
 */
import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type ChallengeResponse } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import * as stepUpApi from 'shared-stepup/api';
import * as factorsApi from '../features/factors/api/factorsApi.js';
import * as passkeysApi from '../features/passkeys/api/passkeysApi.js';
import * as recoveryCodesApi from '../features/recovery-codes/api/recoveryCodesApi.js';
import * as preferredApi from '../lib/preferred-method/preferredMethodApi.js';
import { PREFERRED_METHOD_TEXTS } from '../lib/preferred-method/texts.js';
import SecurityPage from './SecurityPage.js';

jest.mock('shared-stepup/api');
jest.mock('@simplewebauthn/browser', () => ({
  startAuthentication: jest.fn(),
  startRegistration: jest.fn(),
  WebAuthnAbortService: { cancelCeremony: jest.fn() },
}));
jest.mock('../features/factors/api/factorsApi.js');
jest.mock('../features/recovery-codes/api/recoveryCodesApi.js');
jest.mock('../features/passkeys/api/passkeysApi.js');
jest.mock('../lib/preferred-method/preferredMethodApi.js');
const stepUp = jest.mocked(stepUpApi);
const api = jest.mocked(factorsApi);
const passkeys = jest.mocked(passkeysApi);
const recovery = jest.mocked(recoveryCodesApi);
const preferred = jest.mocked(preferredApi);

const MASKED = 'a....e@example.com';
const DATE = '2026-03-07T12:00:00.000Z';
const PASSKEY = { id: 'pk1', name: 'MacBook Pro', createdAt: DATE, lastUsedAt: null, synced: true };
const WITH_PASSKEY = {
  available: true,
  canRename: true,
  enrolment: 'ceremony' as const,
  passkeys: [PASSKEY],
};

function challenge(
  activeFactorsData: ChallengeResponse['activeFactorsData'],
  preferredMethod?: ChallengeResponse['preferredMethod'],
  challengeUser = false,
) {
  stepUp.getChallenge.mockResolvedValue({
    challengeUser,
    activeFactorsData,
    ...(preferredMethod ? { preferredMethod } : {}),
  });
}

function details(google: boolean, email: boolean) {
  api.getDetails.mockImplementation(async (_client, factor) => {
    const enrolled = factor === 'googleAuth' ? google : email;
    return { enrolled, enrolledDate: enrolled ? DATE : null };
  });
}

const region = (name: string | RegExp) => screen.findByRole('region', { name });
const useByDefault = (section: HTMLElement) =>
  within(section).findByRole('button', { name: PREFERRED_METHOD_TEXTS.use });

beforeEach(() => {
  jest.resetAllMocks();
  localStorage.clear();
  sessionStorage.clear();
  recovery.getRecoveryCodesStatus.mockResolvedValue({
    available: true,
    left: 0,
    total: 0,
    generatedAt: null,
  });
  passkeys.getPasskeys.mockResolvedValue({ ...WITH_PASSKEY, passkeys: [] });
  Object.defineProperty(window, 'PublicKeyCredential', {
    value: function PublicKeyCredential() {},
    configurable: true,
  });
});
afterEach(() => {
  delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
});

describe('the default 2-step method on the Security page', () => {
  it('"Default" on the default method, "Use by default" on the other active ones, nothing on a method that is off', async () => {
    challenge({ googleAuth: {}, passkey: { count: 1 } }, 'passkey');
    details(true, false);
    passkeys.getPasskeys.mockResolvedValue(WITH_PASSKEY);
    renderSignedIn(<SecurityPage />);

    const passkeysSection = await region('Passkeys');
    expect(await within(passkeysSection).findByText(PREFERRED_METHOD_TEXTS.tag)).toBeInTheDocument();
    expect(within(passkeysSection).queryByRole('button', { name: PREFERRED_METHOD_TEXTS.use })).toBeNull();

    const google = await region('Google Authenticator');
    const button = await useByDefault(google);
    // The button names its method through the section's heading.
    expect(button).toHaveAccessibleDescription('Google Authenticator');
    expect(within(google).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();

    const email = await region(/Email/);
    await waitFor(() => expect(within(email).queryByText(/Added/)).toBeNull());
    expect(within(email).queryByRole('button', { name: PREFERRED_METHOD_TEXTS.use })).toBeNull();
  });

  it('"Use by default" calls the server, moves the tag, and says so', async () => {
    challenge({ googleAuth: {}, email: { maskedEmail: MASKED } }, 'googleAuth');
    details(true, true);
    preferred.choosePreferredMethod.mockResolvedValue({ preferredMethod: 'email' });
    renderSignedIn(<SecurityPage />);

    const email = await region(/Email/);
    await userEvent.click(await useByDefault(email));
    expect(await screen.findByText(PREFERRED_METHOD_TEXTS.chosen)).toBeInTheDocument();
    expect(preferred.choosePreferredMethod).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'email', {
      signal: expect.any(AbortSignal),
    });
    expect(within(email).getByText(PREFERRED_METHOD_TEXTS.tag)).toBeInTheDocument();
    const google = await region('Google Authenticator');
    expect(within(google).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();
    expect(await useByDefault(google)).toBeEnabled();
  });

  it("a refusal shows the server's text beside the method, and the default stays", async () => {
    challenge({ googleAuth: {}, email: { maskedEmail: MASKED } }, 'googleAuth');
    details(true, true);
    const refusal = 'This 2-step method is not turned on for your account, so it cannot be your default.';
    preferred.choosePreferredMethod.mockRejectedValue(new ApiError(refusal, 409, 'factor_state'));
    renderSignedIn(<SecurityPage />);

    const email = await region(/Email/);
    await userEvent.click(await useByDefault(email));
    expect(await within(email).findByRole('alert')).toHaveTextContent(refusal);
    expect(
      within(await region('Google Authenticator')).getByText(PREFERRED_METHOD_TEXTS.tag),
    ).toBeInTheDocument();
    expect(screen.queryByText(PREFERRED_METHOD_TEXTS.chosen)).toBeNull();
  });

  it('a 403 step_up_required goes back to the step-up check, whose screens open with the default', async () => {
    challenge({ googleAuth: {}, email: { maskedEmail: MASKED } }, 'googleAuth');
    details(true, true);
    preferred.choosePreferredMethod.mockRejectedValue(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    renderSignedIn(<SecurityPage />);
    await userEvent.click(await useByDefault(await region(/Email/)));

    challenge({ googleAuth: {}, email: { maskedEmail: MASKED } }, 'googleAuth', true);
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    // The default's screen straight away; the others one click away.
    expect(
      await screen.findByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Use another method' }));
    expect(await screen.findByRole('button', { name: 'Verify with Email' })).toBeInTheDocument();
  });

  it('turning the default off forgets it: no tag, and nothing to make the default there', async () => {
    challenge({ googleAuth: {}, email: { maskedEmail: MASKED } }, 'email');
    details(true, true);
    api.optOut.mockResolvedValue({ status: 'INACTIVE', enrolledDate: DATE });
    renderSignedIn(<SecurityPage />);
    const email = await region(/Email/);
    expect(await within(email).findByText(PREFERRED_METHOD_TEXTS.tag)).toBeInTheDocument();

    const emailSwitch = await screen.findByRole('switch', { name: 'Verification with email' });
    await waitFor(() => expect(emailSwitch).toBeEnabled());
    await userEvent.click(emailSwitch);
    const dialog = await screen.findByRole('dialog', { name: 'Turn off verification with email?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Verification with email is turned off.')).toBeInTheDocument();
    expect(within(email).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();
    expect(within(email).queryByRole('button', { name: PREFERRED_METHOD_TEXTS.use })).toBeNull();
    expect(within(await region('Google Authenticator')).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();
  });

  it('removing the last passkey forgets it as the default', async () => {
    challenge({ googleAuth: {}, passkey: { count: 1 } }, 'passkey');
    details(true, false);
    passkeys.getPasskeys.mockResolvedValue(WITH_PASSKEY);
    passkeys.removePasskey.mockResolvedValue({ ...WITH_PASSKEY, passkeys: [] });
    renderSignedIn(<SecurityPage />);
    const section = await region('Passkeys');
    expect(await within(section).findByText(PREFERRED_METHOD_TEXTS.tag)).toBeInTheDocument();

    await userEvent.click(within(section).getByRole('button', { name: /Remove/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await within(section).findByText('You have no passkeys yet.')).toBeInTheDocument();
    expect(within(section).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();
    // Set up again later, it is not the default by itself.
    expect(within(await region('Google Authenticator')).queryByText(PREFERRED_METHOD_TEXTS.tag)).toBeNull();
  });
});
