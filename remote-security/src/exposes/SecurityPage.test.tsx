import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, INVALID_CODE_ERROR, type ChallengeResponse, type PortalAuth } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import * as factorsApi from '../features/factors/api/factorsApi.js';
import { reauthenticate } from '../lib/reauthentication/reauthenticate.js';
import * as passkeysApi from '../features/passkeys/api/passkeysApi.js';
import * as recoveryCodesApi from '../features/recovery-codes/api/recoveryCodesApi.js';
import * as stepUpApi from 'shared-stepup/api';
import { startRegistration } from '@simplewebauthn/browser';
import { stepUpStorageKey } from 'shared-stepup';
import { pendingActionStorageKey } from '../lib/reauthentication/pendingAction.js';
import SecurityPage from './SecurityPage.js';

jest.mock('shared-stepup/api');
jest.mock('@simplewebauthn/browser', () => ({
  startAuthentication: jest.fn(),
  startRegistration: jest.fn(),
  WebAuthnAbortService: { cancelCeremony: jest.fn() },
}));
jest.mock('../features/factors/api/factorsApi.js');
jest.mock('../lib/reauthentication/reauthenticate.js');
jest.mock('../features/recovery-codes/api/recoveryCodesApi.js');
jest.mock('../features/passkeys/api/passkeysApi.js');
const passkeys = jest.mocked(passkeysApi);
const recovery = jest.mocked(recoveryCodesApi);
const stepUp = jest.mocked(stepUpApi);
const api = jest.mocked(factorsApi);
const reauthenticateMock = jest.mocked(reauthenticate);

const MASKED = 'a....e@example.com';
const DATE = '2026-03-07T12:00:00.000Z';
const BOTH: ChallengeResponse['activeFactorsData'] = { googleAuth: {}, email: { maskedEmail: MASKED } };
const invalid = () => new ApiError(INVALID_CODE_ERROR, 400, 'invalid_code');
const STEP_UP_STORAGE_KEY = stepUpStorageKey('00u1alice');
const PENDING_KEY = pendingActionStorageKey('00u1alice');

function renderPage(overrides: Partial<PortalAuth> = {}) {
  renderSignedIn(<SecurityPage />, overrides);
}

function challenge(challengeUser: boolean, activeFactorsData: ChallengeResponse['activeFactorsData'] = BOTH) {
  stepUp.getChallenge.mockResolvedValue({ challengeUser, activeFactorsData });
}

/** The factors' details; `turnOff: 'removes'` as the server says in Okta mode. */
function details(google: boolean, email: boolean, turnOff?: 'keeps' | 'removes') {
  api.getDetails.mockImplementation(async (_client, factor) => {
    const enrolled = factor === 'googleAuth' ? google : email;
    return { enrolled, enrolledDate: enrolled ? DATE : null, ...(turnOff ? { turnOff } : {}) };
  });
}

const region = (name: string | RegExp) => screen.findByRole('region', { name });

/** The email factor's switch, once the page has loaded the factors and enabled it. */
async function enabledEmailSwitch() {
  const emailSwitch = await screen.findByRole('switch', { name: 'Verification with email' });
  await waitFor(() => expect(emailSwitch).toBeEnabled());
  return emailSwitch;
}

/** Answers Confirm in the dialog that turning email off opens. */
async function confirmTurningEmailOff() {
  const dialog = await screen.findByRole('dialog', { name: 'Turn off verification with email?' });
  await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
}

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
  // Passkeys' own tests are the section's (features/passkeys); here the backend holds none.
  passkeys.getPasskeys.mockResolvedValue({
    available: false,
    canRename: true,
    enrolment: 'ceremony',
    passkeys: [],
  });
});

describe('Security page', () => {
  it('shows the title and intro, and the unavailable message to federated users without calling the API', () => {
    renderPage({ isFederated: true });
    expect(screen.getByRole('heading', { level: 1, name: 'Security' })).toBeInTheDocument();
    expect(
      screen.getByText(
        "Protect your account with 2-step verification. Each time you sign in to your F5 account, you'll need your password and a verification code.",
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Resource not available for federated users')).toBeInTheDocument();
    expect(stepUp.getChallenge).not.toHaveBeenCalled();
  });

  it('shows a loading screen while the step-up check runs', async () => {
    stepUp.getChallenge.mockReturnValue(new Promise(() => undefined));
    renderPage();
    expect(await screen.findByLabelText('Checking your verification')).toBeInTheDocument();
  });

  it('treats a failed check as a challenge with no factors: Error', async () => {
    stepUp.getChallenge.mockRejectedValue(new ApiError('down', 500));
    renderPage();
    expect(await screen.findByText('Error')).toBeInTheDocument();
  });

  it("Try again on 'Error' runs the check again", async () => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    stepUp.getChallenge
      .mockRejectedValueOnce(new ApiError('down', 500))
      .mockResolvedValueOnce({ challengeUser: true, activeFactorsData: BOTH });
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(stepUp.getChallenge).toHaveBeenCalledTimes(2);
  });
});

describe('step-up screens', () => {
  it('Verify → 0.5 s loading → selection → Google code: wrong code inline, then the factors page', async () => {
    challenge(true);
    details(true, true);
    stepUp.verifyStepUp.mockRejectedValueOnce(invalid()).mockResolvedValueOnce(undefined);
    renderPage();

    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(screen.getByText('You will access security information after verification.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('dialog', { name: 'Loading' })).toBeInTheDocument();
    expect(
      await screen.findByRole('heading', { name: 'Select a verification method to continue' }),
    ).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem(STEP_UP_STORAGE_KEY)!).value).toBe('FACTOR_SELECTION');

    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(
      await screen.findByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).toBeInTheDocument();
    const input = screen.getByLabelText('Enter authentication code');
    expect(input).toHaveAttribute('placeholder', '123456');
    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await userEvent.type(input, '12345678901');
    expect(verify).toBeDisabled();
    await userEvent.clear(input);
    await userEvent.type(input, '000000');
    await userEvent.click(verify);
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid verification code');
    expect(screen.queryByRole('dialog', { name: 'Verifying' })).not.toBeInTheDocument();

    await userEvent.clear(input);
    await userEvent.type(input, '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await region('Your Email Factor')).toBeInTheDocument();
    expect(stepUp.verifyStepUp).toHaveBeenLastCalledWith(
      expect.anything(),
      '00u1alice',
      'google-auth',
      '123456',
      { signal: expect.any(AbortSignal) },
    );
    expect(localStorage.getItem(STEP_UP_STORAGE_KEY)).toBeNull();
  });

  it('Back and Cancel: selection → Back → start; a verify screen → Cancel → selection', async () => {
    challenge(true);
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Verify with Email' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
  });

  it('email: one factor goes straight to its screen; send labels; trimmed code; wrong code inline', async () => {
    challenge(true, { email: { maskedEmail: MASKED } });
    details(false, true);
    let sent!: () => void;
    stepUp.sendEmailChallenge.mockReturnValue(new Promise((resolve) => (sent = () => resolve())));
    stepUp.verifyStepUp.mockRejectedValueOnce(invalid()).mockResolvedValueOnce(undefined);
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(`An authentication code will be sent to ${MASKED}.`)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Send authentication code' }));
    expect(await screen.findByRole('button', { name: /Sending authentication code/ })).toBeDisabled();
    sent();
    expect(
      await screen.findByRole('button', { name: `Authentication code sent to ${MASKED}` }),
    ).toBeDisabled();

    const input = screen.getByLabelText('Enter authentication code');
    await userEvent.type(input, '   ');
    expect(screen.getByRole('button', { name: 'Verify' })).toBeDisabled();
    await userEvent.type(input, '111111 ');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid authentication code');
    expect(stepUp.verifyStepUp).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'email', '111111', {
      signal: expect.any(AbortSignal),
    });
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await region('Your Email Factor')).toBeInTheDocument();
  });

  it('a failed email send shows Error', async () => {
    challenge(true, { email: { maskedEmail: MASKED } });
    stepUp.sendEmailChallenge.mockRejectedValue(
      new ApiError('The verification email could not be sent.', 502),
    );
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Send authentication code' }));
    expect(await screen.findByText('Error')).toBeInTheDocument();
  });

  it("does not resume another user's stored screen, nor one stored without a user", async () => {
    const stored = JSON.stringify({ value: 'GA_VERIFY', expiry: Date.now() + 60_000 });
    localStorage.setItem(stepUpStorageKey('00u2bob'), stored);
    // What the portal stored before the key named the user: whose it was is unknown.
    localStorage.setItem('stepUp', stored);
    challenge(true);
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(
      screen.queryByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).not.toBeInTheDocument();
    expect(localStorage.getItem('stepUp')).toBeNull();
  });

  it('resumes the stored screen within 5 minutes', async () => {
    localStorage.setItem(
      STEP_UP_STORAGE_KEY,
      JSON.stringify({ value: 'GA_VERIFY', expiry: Date.now() + 60_000 }),
    );
    challenge(true);
    renderPage();
    expect(
      await screen.findByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).toBeInTheDocument();
  });
});

describe('factors page', () => {
  it("shows both factors with 'Added {date}', 'Verified' and 'remove' when 2 are active", async () => {
    challenge(false);
    details(true, true);
    renderPage();
    const email = await region('Your Email Factor');
    expect(within(email).getByText('Use verification codes via email.')).toBeInTheDocument();
    expect(await within(email).findByText('Verified')).toBeInTheDocument();
    expect(within(email).getByText(MASKED, { exact: false })).toBeInTheDocument();
    expect(within(email).getByText('Added Mar 7, 2026')).toBeInTheDocument();
    const google = await region('Google Authenticator');
    expect(await within(google).findByText('Added Mar 7, 2026')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'remove' })).toHaveLength(2);
    expect(screen.getByRole('switch', { name: 'Verification with email' })).toBeEnabled();
    expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).toBeChecked();
  });

  it('a passkey counts as a 2-step method: with the app and a passkey, the app can be turned off and removed', async () => {
    challenge(false, { googleAuth: {}, passkey: { count: 1 } });
    details(true, false);
    passkeys.getPasskeys.mockResolvedValue({
      available: true,
      canRename: true,
      enrolment: 'ceremony',
      passkeys: [{ id: 'pk1', name: 'Laptop', createdAt: DATE, lastUsedAt: null, synced: false }],
    });
    renderPage();
    const google = await region('Google Authenticator');
    expect(await within(google).findByText('Added Mar 7, 2026')).toBeInTheDocument();
    const appSwitch = screen.getByRole('switch', { name: 'Verification with Authenticator app' });
    await waitFor(() => expect(appSwitch).toBeEnabled());
    expect(within(google).getByRole('button', { name: 'remove' })).toBeInTheDocument();
  });

  it('the only 2-step method, without a passkey, cannot be turned off or removed', async () => {
    challenge(false, { googleAuth: {} });
    details(true, false);
    renderPage();
    const google = await region('Google Authenticator');
    expect(await within(google).findByText('Added Mar 7, 2026')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).toBeDisabled();
    expect(within(google).queryByRole('button', { name: 'remove' })).not.toBeInTheDocument();
  });

  it('turning email off asks first, then calls opt-out, shows a toast and updates count and switches', async () => {
    challenge(false);
    details(true, true);
    api.optOut.mockResolvedValue({ status: 'INACTIVE', enrolledDate: DATE });
    renderPage();
    const emailSwitch = await enabledEmailSwitch();
    await userEvent.click(emailSwitch);
    const dialog = await screen.findByRole('dialog', { name: 'Turn off verification with email?' });
    expect(dialog).toHaveTextContent(
      'Verification codes by email will no longer be available when you sign in.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.optOut).not.toHaveBeenCalled();

    await userEvent.click(emailSwitch);
    await confirmTurningEmailOff();
    expect(await screen.findByText('Verification with email is turned off.')).toBeInTheDocument();
    expect(api.optOut).toHaveBeenCalledWith(expect.anything(), 'email', '00u1alice', {
      signal: expect.any(AbortSignal),
    });
    expect(emailSwitch).not.toBeChecked();
    // One active factor left: it cannot be turned off, and nothing can be removed.
    expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'remove' })).not.toBeInTheDocument();
  });

  it('turning a factor back on calls opt-in', async () => {
    challenge(false, { googleAuth: {} });
    details(true, true);
    api.optIn.mockResolvedValue({ status: 'ACTIVE', enrolledDate: DATE });
    renderPage();
    const emailSwitch = await enabledEmailSwitch();
    expect(emailSwitch).not.toBeChecked();
    await userEvent.click(emailSwitch);
    expect(await screen.findByText('Verification with email is turned on.')).toBeInTheDocument();
    expect(emailSwitch).toBeChecked();
    expect(api.optIn).toHaveBeenCalledWith(expect.anything(), 'email', '00u1alice', {
      signal: expect.any(AbortSignal),
    });
  });

  it('removal asks with its own dialog, then resets the factor', async () => {
    challenge(false);
    details(true, true);
    api.reset.mockResolvedValue({ status: 'NOT_ENROLLED', enrolledDate: null });
    renderPage();
    const google = await region('Google Authenticator');
    await userEvent.click(await within(google).findByRole('button', { name: 'remove' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove your Google Authenticator account?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Google Authenticator was removed.')).toBeInTheDocument();
    expect(api.reset).toHaveBeenCalledWith(expect.anything(), 'googleAuth', '00u1alice', {
      signal: expect.any(AbortSignal),
    });
    expect(within(google).queryByText(/^Added/)).not.toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).not.toBeChecked();
  });

  /** Turning email off, answered with a 500. */
  async function failTurningEmailOff() {
    challenge(false);
    details(true, true);
    api.optOut.mockRejectedValue(new ApiError('Internal error', 500));
    renderPage();
    await userEvent.click(await enabledEmailSwitch());
    await confirmTurningEmailOff();
  }

  it('a failed toggle shows the error view', async () => {
    await failTurningEmailOff();
    expect(await screen.findByText('An Unexpected Error happened...')).toBeInTheDocument();
  });

  it("a factor's error view has Try again, which starts the page over", async () => {
    await failTurningEmailOff();
    expect(await screen.findByText('An Unexpected Error happened...')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await region('Your Email Factor')).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByRole('switch', { name: 'Verification with email' })).toBeEnabled(),
    );
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
    expect(stepUp.getChallenge).toHaveBeenCalledTimes(2);
  });

  it("shows neither 'Your Email Factor' nor 'Verified' while email is turned off", async () => {
    // Email is set up (details say enrolled) but not active: only the authenticator app is on.
    challenge(false, { googleAuth: {} });
    details(true, true);
    renderPage();
    const email = await region('Email');
    await waitFor(() =>
      expect(screen.getByRole('switch', { name: 'Verification with email' })).toBeEnabled(),
    );
    expect(screen.queryByRole('region', { name: 'Your Email Factor' })).not.toBeInTheDocument();
    expect(within(email).queryByText('Verified')).not.toBeInTheDocument();
  });

  it("drops 'Your Email Factor' and 'Verified' once email is turned off", async () => {
    challenge(false);
    details(true, true);
    api.optOut.mockResolvedValue({ status: 'INACTIVE', enrolledDate: DATE });
    renderPage();
    expect(await region('Your Email Factor')).toBeInTheDocument();
    const emailSwitch = screen.getByRole('switch', { name: 'Verification with email' });
    await waitFor(() => expect(emailSwitch).toBeEnabled());
    await userEvent.click(emailSwitch);
    await confirmTurningEmailOff();
    expect(await region('Email')).toBeInTheDocument();
    expect(screen.queryByText('Verified')).not.toBeInTheDocument();
  });

  it('goes back to the step-up check when the server says the verification ran out', async () => {
    stepUp.getChallenge
      .mockResolvedValueOnce({ challengeUser: false, activeFactorsData: BOTH })
      .mockResolvedValueOnce({ challengeUser: true, activeFactorsData: BOTH });
    api.getDetails.mockRejectedValue(
      new ApiError('Step-up verification required: verify first', 403, 'step_up_required'),
    );
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(stepUp.getChallenge).toHaveBeenCalledTimes(2);
  });
  it('goes back to the step-up check on the step_up_required code, whatever the text says', async () => {
    stepUp.getChallenge
      .mockResolvedValueOnce({ challengeUser: false, activeFactorsData: BOTH })
      .mockResolvedValueOnce({ challengeUser: true, activeFactorsData: BOTH });
    details(true, true);
    api.optOut.mockRejectedValue(
      new ApiError('Verify with one of your 2-step factors first.', 403, 'step_up_required'),
    );
    renderPage();
    const emailSwitch = await enabledEmailSwitch();
    await userEvent.click(emailSwitch);
    await confirmTurningEmailOff();
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
  });
});

describe('enrolment', () => {
  it('Google Authenticator: store links, QR code, setup key dialog, wrong code, then active', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockResolvedValue({
      qrLink: 'otpauth://totp/F5%20Account:alice%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    });
    api.activate.mockResolvedValueOnce({ ok: false }).mockResolvedValueOnce({
      ok: true,
      status: { status: 'ACTIVE', enrolledDate: DATE },
    });
    renderPage();
    const gaSwitch = await screen.findByRole('switch', { name: 'Verification with Authenticator app' });
    await waitFor(() => expect(gaSwitch).toBeEnabled());
    await userEvent.click(gaSwitch);

    expect(
      await screen.findByRole('link', { name: 'Google Authenticator on the App Store' }),
    ).toHaveAttribute('href', 'https://apps.apple.com/app/google-authenticator/id388497605');
    expect(screen.getByRole('link', { name: 'Google Authenticator on Google Play' })).toBeInTheDocument();
    const qrCode = screen.getByRole('img', { name: 'QR code to scan with Google Authenticator' });
    // One image for assistive technology: the svg inside the named wrapper is hidden from it.
    await waitFor(() => expect(qrCode.querySelector('svg')).toHaveAttribute('aria-hidden', 'true'));

    await userEvent.click(screen.getByRole('button', { name: "Can't scan the QR code?" }));
    const dialog = await screen.findByRole('dialog', { name: 'Enter a Setup Key' });
    expect(within(dialog).getByLabelText('Setup key')).toHaveTextContent(
      'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP',
    );
    for (const step of ['tap +', 'Enter a setup key', 'alice@example.com', 'Time based', 'Tap Add']) {
      expect(dialog).toHaveTextContent(step);
    }
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await userEvent.type(screen.getByLabelText('Verification code'), '000000');
    await userEvent.click(verify);
    expect(await screen.findByRole('alert')).toHaveTextContent('Not a correct verification code');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Google Authenticator is set up.')).toBeInTheDocument();
    const google = await region('Google Authenticator');
    expect(within(google).getByText('Added Mar 7, 2026')).toBeInTheDocument();
    expect(gaSwitch).toBeChecked();
    // The only active factor cannot be turned off.
    expect(gaSwitch).toBeDisabled();
  });

  it('email: a send refused as too soon says the wait, and Send Code waits out its Retry-After', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollEmail.mockRejectedValue(
      Object.assign(
        new ApiError(
          'A code was sent less than 30 seconds ago. Wait 20 seconds before asking for another.',
          429,
          'rate_limited',
        ),
        { retryAfterSeconds: 20 },
      ),
    );
    renderPage();
    const emailSwitch = await enabledEmailSwitch();
    await userEvent.click(emailSwitch);
    await userEvent.click(await screen.findByRole('button', { name: 'Send Code' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Wait 20 seconds before asking for another.');
    expect(screen.getByRole('button', { name: 'Send Code' })).toBeDisabled();
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
  });

  it('email: Send Code → Resend (30s) countdown; wrong code inline; then Your Email Factor', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollEmail.mockResolvedValue(undefined);
    let finish!: (value: factorsApi.ActivateResult) => void;
    api.activate
      .mockResolvedValueOnce({ ok: false })
      .mockReturnValueOnce(new Promise((resolve) => (finish = resolve)));
    renderPage();
    const emailSwitch = await enabledEmailSwitch();
    await userEvent.click(emailSwitch);
    expect(await screen.findByText(`We will send a verification code to ${MASKED}.`)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Send Code' }));
    expect(await screen.findByRole('button', { name: /^Resend \((30|29)s\)$/ })).toBeDisabled();

    const input = await screen.findByLabelText('Verification code');
    await userEvent.type(input, '000000');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid verification code');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(input).toBeDisabled());
    finish({ ok: true, status: { status: 'ACTIVE', enrolledDate: DATE } });
    expect(await region('Your Email Factor')).toBeInTheDocument();
    expect(await screen.findByText('Verified')).toBeInTheDocument();
  });

  it('an enrolment error other than a wrong code shows the error view', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValue(new ApiError('Internal error', 500));
    renderPage();
    const gaSwitch = await screen.findByRole('switch', { name: 'Verification with Authenticator app' });
    await waitFor(() => expect(gaSwitch).toBeEnabled());
    await userEvent.click(gaSwitch);
    expect(await screen.findByText('An Unexpected Error happened...')).toBeInTheDocument();
  });
});

describe("Confirm it's you (the first factor needs the password again)", () => {
  const REAUTH_TEXT = "Confirm it's you: enter your password to turn on 2-step verification.";
  const reauthRequired = () => new ApiError(REAUTH_TEXT, 403, 'reauthentication_required');
  const QR = {
    qrLink: 'otpauth://totp/F5%20Account:alice%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  };
  const confirmDialog = () => screen.findByRole('dialog', { name: "Confirm it's you" });
  const noConfirmDialog = () =>
    waitFor(() => expect(screen.queryByRole('dialog', { name: "Confirm it's you" })).not.toBeInTheDocument());

  async function switchOn(name: 'Verification with Authenticator app' | 'Verification with email') {
    const control = await screen.findByRole('switch', { name });
    await waitFor(() => expect(control).toBeEnabled());
    await userEvent.click(control);
    return control;
  }

  it('Google enrolment: asks for the password, then sets up the app without another click', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValueOnce(reauthRequired()).mockResolvedValueOnce(QR);
    reauthenticateMock.mockResolvedValue(undefined);
    renderPage();
    const gaSwitch = await switchOn('Verification with Authenticator app');

    const dialog = await confirmDialog();
    expect(dialog).toHaveTextContent(
      'For your security, enter your password to turn on 2-step verification.',
    );
    const password = within(dialog).getByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    await waitFor(() => expect(password).toHaveFocus());
    expect(within(dialog).getByRole('button', { name: 'Confirm' })).toBeDisabled();

    await userEvent.type(password, 'Wonderland-42');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await noConfirmDialog();
    expect(reauthenticateMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'Wonderland-42', {
      signal: expect.any(AbortSignal),
    });
    expect(
      await screen.findByRole('img', { name: 'QR code to scan with Google Authenticator' }),
    ).toBeInTheDocument();
    expect(api.enrollGoogle).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(gaSwitch).toHaveFocus());
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
  });

  it("a wrong password shows the server's text under the field, which keeps the focus; so does 429", async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValueOnce(reauthRequired()).mockResolvedValueOnce(QR);
    reauthenticateMock
      .mockRejectedValueOnce(new ApiError('The password is not correct.', 400))
      .mockRejectedValueOnce(
        new ApiError('Too many wrong current passwords. Try again in 15 minutes.', 429, 'rate_limited'),
      )
      .mockResolvedValueOnce(undefined);
    renderPage();
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    const password = within(dialog).getByLabelText('Password');
    // The dialog has put the focus in the field; Confirm takes it from there.
    await waitFor(() => expect(password).toHaveFocus());

    await userEvent.type(password, 'not-it');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('The password is not correct.');
    expect(password).toHaveAccessibleDescription(/The password is not correct\./);
    expect(password).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => expect(password).toHaveFocus());
    expect(api.enrollGoogle).toHaveBeenCalledTimes(1);

    await userEvent.type(password, '{Enter}');
    expect(
      await within(dialog).findByText('Too many wrong current passwords. Try again in 15 minutes.'),
    ).toHaveAttribute('role', 'alert');
    expect(screen.getByRole('dialog', { name: "Confirm it's you" })).toBeInTheDocument();

    await userEvent.clear(password);
    await userEvent.type(password, 'Wonderland-42{Enter}');
    await noConfirmDialog();
    expect(
      await screen.findByRole('img', { name: 'QR code to scan with Google Authenticator' }),
    ).toBeInTheDocument();
    expect(reauthenticateMock).toHaveBeenCalledTimes(3);
  });

  it('Cancel leaves the factor off, with no error, and gives the focus back to the switch', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValue(reauthRequired());
    renderPage();
    const gaSwitch = await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await noConfirmDialog();
    expect(gaSwitch).not.toBeChecked();
    expect(gaSwitch).toBeEnabled();
    await waitFor(() => expect(gaSwitch).toHaveFocus());
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
    expect(
      screen.queryByRole('img', { name: 'QR code to scan with Google Authenticator' }),
    ).not.toBeInTheDocument();
    expect(reauthenticateMock).not.toHaveBeenCalled();
    expect(api.enrollGoogle).toHaveBeenCalledTimes(1);
  });

  it('opt-in: asks for the password, then turns the factor on', async () => {
    challenge(false, {});
    details(true, false);
    api.optIn
      .mockRejectedValueOnce(reauthRequired())
      .mockResolvedValueOnce({ status: 'ACTIVE', enrolledDate: DATE });
    reauthenticateMock.mockResolvedValue(undefined);
    renderPage();
    const gaSwitch = await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await screen.findByText('Verification with Authenticator app is turned on.')).toBeInTheDocument();
    expect(api.optIn).toHaveBeenCalledTimes(2);
    expect(gaSwitch).toBeChecked();
    await noConfirmDialog();
  });

  it('opt-in cancelled: the switch stays off and can be used again', async () => {
    challenge(false, {});
    details(true, false);
    api.optIn.mockRejectedValue(reauthRequired());
    renderPage();
    const gaSwitch = await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await waitFor(() => expect(within(dialog).getByLabelText('Password')).toHaveFocus());
    await userEvent.keyboard('{Escape}');
    await noConfirmDialog();
    expect(dialog).not.toBeInTheDocument();
    expect(gaSwitch).not.toBeChecked();
    await waitFor(() => expect(gaSwitch).toBeEnabled());
    await waitFor(() => expect(gaSwitch).toHaveFocus());
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
  });

  it('a 409 (the account has a factor by now) goes to the step-up check; other failures to the error view', async () => {
    stepUp.getChallenge
      .mockResolvedValueOnce({ challengeUser: false, activeFactorsData: {} })
      .mockResolvedValueOnce({ challengeUser: true, activeFactorsData: { email: { maskedEmail: MASKED } } });
    details(false, false);
    api.enrollGoogle.mockRejectedValue(reauthRequired());
    reauthenticateMock.mockRejectedValue(
      new ApiError('This account has 2-step verification: verify with one of its factors instead.', 409),
    );
    renderPage();
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await screen.findByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    await noConfirmDialog();
  });

  it('a check that fails otherwise closes the dialog and shows the error view', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValue(reauthRequired());
    reauthenticateMock.mockRejectedValue(new ApiError('The account service answered 503', 503));
    renderPage();
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await screen.findByText('An Unexpected Error happened...')).toBeInTheDocument();
    await noConfirmDialog();
    expect(api.enrollGoogle).toHaveBeenCalledTimes(1);
  });

  it('email: Send Code asks for the password, then sends the code', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollEmail.mockRejectedValueOnce(reauthRequired()).mockResolvedValueOnce(undefined);
    reauthenticateMock.mockResolvedValue(undefined);
    renderPage();
    await switchOn('Verification with email');
    await userEvent.click(await screen.findByRole('button', { name: 'Send Code' }));
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await screen.findByRole('button', { name: /^Resend \((30|29)s\)$/ })).toBeDisabled();
    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(api.enrollEmail).toHaveBeenCalledTimes(2);
  });

  it('activation: the code is sent again once the password is confirmed', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockResolvedValue(QR);
    api.activate
      .mockRejectedValueOnce(reauthRequired())
      .mockResolvedValueOnce({ ok: true, status: { status: 'ACTIVE', enrolledDate: DATE } });
    reauthenticateMock.mockResolvedValue(undefined);
    renderPage();
    await switchOn('Verification with Authenticator app');
    await userEvent.type(await screen.findByLabelText('Verification code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await screen.findByText('Google Authenticator is set up.')).toBeInTheDocument();
    expect(api.activate).toHaveBeenCalledTimes(2);
    expect(api.activate).toHaveBeenLastCalledWith(expect.anything(), 'googleAuth', '00u1alice', '123456', {
      signal: expect.any(AbortSignal),
    });
  });
});

describe('Okta mode: turning off removes, and "Confirm it\'s you" is a new sign-in', () => {
  const SIGN_IN_TEXT =
    'For your security, you need to sign in again to turn on 2-step verification. You will come back to this page afterwards.';
  const signInRequired = () =>
    new ApiError(
      "Confirm it's you: sign in again to turn on 2-step verification.",
      403,
      'reauthentication_required',
      undefined,
      'sign-in',
    );
  const confirmDialog = () => screen.findByRole('dialog', { name: "Confirm it's you" });

  async function switchOn(name: 'Verification with Authenticator app' | 'Verification with email') {
    const control = await screen.findByRole('switch', { name });
    await waitFor(() => expect(control).toBeEnabled());
    await userEvent.click(control);
    return control;
  }

  it("turning the app off: the spec's title, a text that says it is removed; then it is not set up, the count down by 1", async () => {
    challenge(false);
    details(true, true, 'removes');
    api.optOut.mockResolvedValue({ status: 'NOT_ENROLLED', enrolledDate: null });
    renderPage();
    const gaSwitch = await switchOn('Verification with Authenticator app');
    const dialog = await screen.findByRole('dialog', {
      name: 'Turn off verification with Authenticator app?',
    });
    expect(dialog).toHaveTextContent(
      "Turning it off removes your Authenticator app from your account in your organisation's sign-in. You can set it up again at any time.",
    );
    expect(dialog).not.toHaveTextContent(/will not be removed|turn it back on/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Verification with Authenticator app is turned off.')).toBeInTheDocument();
    expect(gaSwitch).not.toBeChecked();
    const google = await region('Google Authenticator');
    expect(within(google).queryByText(/^Added/)).not.toBeInTheDocument();
    // One active factor left: email cannot be turned off, nothing can be removed.
    expect(screen.getByRole('switch', { name: 'Verification with email' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'remove' })).not.toBeInTheDocument();

    // Switched on again, it is set up again (not opt-in): the enrolment starts.
    api.enrollGoogle.mockReturnValue(new Promise(() => undefined));
    await userEvent.click(gaSwitch);
    await waitFor(() => expect(api.enrollGoogle).toHaveBeenCalledTimes(1));
    expect(api.optIn).not.toHaveBeenCalled();
  });

  it('turning email off says it is removed from the sign-in', async () => {
    challenge(false);
    details(true, true, 'removes');
    renderPage();
    await userEvent.click(await enabledEmailSwitch());
    const dialog = await screen.findByRole('dialog', { name: 'Turn off verification with email?' });
    expect(dialog).toHaveTextContent(
      "Verification codes by email will no longer be available when you sign in: turning it off removes email from your account in your organisation's sign-in. Your Authenticator app option stays, and you can set up email again at any time.",
    );
  });

  it("the spec's texts where the server keeps a factor that is turned off", async () => {
    challenge(false);
    details(true, true, 'keeps');
    renderPage();
    await switchOn('Verification with Authenticator app');
    const dialog = await screen.findByRole('dialog', {
      name: 'Turn off verification with Authenticator app?',
    });
    expect(dialog).toHaveTextContent(
      'Your Authenticator app option will not be removed. You can turn it back on at any time.',
    );
  });

  it("proof 'sign-in': no password field, 'Sign in again' starts a new sign-in that comes back to this page", async () => {
    challenge(false, {});
    details(false, false, 'removes');
    api.enrollGoogle.mockRejectedValue(signInRequired());
    const signInAgain = jest.fn(() => new Promise<void>(() => undefined));
    renderPage({ signInAgain });
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    expect(dialog).toHaveTextContent(SIGN_IN_TEXT);
    expect(within(dialog).queryByLabelText('Password')).not.toBeInTheDocument();
    const button = within(dialog).getByRole('button', { name: 'Sign in again' });
    await waitFor(() => expect(button).toHaveFocus());
    await userEvent.click(button);
    expect(signInAgain).toHaveBeenCalledWith({ returnTo: window.location.pathname });
    expect(reauthenticateMock).not.toHaveBeenCalled();
    // Remembered for this holder, to finish after the return.
    expect(JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null')).toEqual({
      feature: 'factors',
      key: 'googleAuth',
      sub: '00u1alice',
      savedAt: expect.any(Number),
    });
  });

  describe("back from 'Sign in again', the action goes on by itself", () => {
    const QR = { qrLink: 'otpauth://totp/F5%20Account:alice?secret=JBSWY3DP', secret: 'JBSWY3DP' };
    const remember = (key: string, more: Record<string, unknown> = {}) =>
      sessionStorage.setItem(
        PENDING_KEY,
        JSON.stringify({ feature: 'factors', key, sub: '00u1alice', savedAt: Date.now() - 60_000, ...more }),
      );

    it("the authenticator app's set-up starts (its QR code), once, and the record is gone", async () => {
      challenge(false, {});
      details(false, false, 'removes');
      api.enrollGoogle.mockResolvedValue(QR);
      remember('googleAuth');
      renderPage();
      expect(
        await screen.findByRole('img', { name: 'QR code to scan with Google Authenticator' }),
      ).toBeInTheDocument();
      expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).toBeChecked();
      expect(api.enrollGoogle).toHaveBeenCalledTimes(1);
      expect(sessionStorage.getItem(PENDING_KEY)).toBeNull();
      expect(screen.queryByRole('dialog', { name: "Confirm it's you" })).not.toBeInTheDocument();
    });

    it('a factor set up and turned off is turned on: the opt-in, and its toast', async () => {
      challenge(false, {});
      details(true, false);
      api.optIn.mockResolvedValue({ status: 'ACTIVE', enrolledDate: DATE });
      remember('googleAuth');
      renderPage();
      expect(
        await screen.findByText('Verification with Authenticator app is turned on.'),
      ).toBeInTheDocument();
      expect(api.optIn).toHaveBeenCalledTimes(1);
      expect(api.optIn).toHaveBeenCalledWith(expect.anything(), 'googleAuth', '00u1alice', {
        signal: expect.any(AbortSignal),
      });
      expect(screen.getByRole('switch', { name: 'Verification with Authenticator app' })).toBeChecked();
    });

    it("email's set-up sends its code without Send Code being pressed again", async () => {
      challenge(false, {});
      details(false, false);
      api.enrollEmail.mockResolvedValue(undefined);
      remember('email');
      renderPage();
      expect(await screen.findByRole('button', { name: /^Resend \((30|29)s\)$/ })).toBeDisabled();
      expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
      expect(api.enrollEmail).toHaveBeenCalledTimes(1);
    });

    it('a resumed call that fails shows the normal error', async () => {
      challenge(false, {});
      details(false, false);
      api.enrollGoogle.mockRejectedValue(new ApiError('The account service answered 503', 503));
      remember('googleAuth');
      renderPage();
      expect(await screen.findByText('An Unexpected Error happened...')).toBeInTheDocument();
      expect(api.enrollGoogle).toHaveBeenCalledTimes(1);
    });

    it.each([
      ['older than 10 minutes', { savedAt: Date.now() - 11 * 60_000 }],
      ['of another holder', { sub: '00u2bob' }],
    ])('nothing resumes for an action %s, and it is forgotten', async (_case, more) => {
      challenge(false, {});
      details(false, false);
      remember('googleAuth', more);
      renderPage();
      const gaSwitch = await screen.findByRole('switch', { name: 'Verification with Authenticator app' });
      await waitFor(() => expect(gaSwitch).toBeEnabled());
      await waitFor(() => expect(sessionStorage.getItem(PENDING_KEY)).toBeNull());
      expect(gaSwitch).not.toBeChecked();
      expect(api.enrollGoogle).not.toHaveBeenCalled();
    });
  });

  it('a sign-in that cannot start says so, and can be tried again; Cancel leaves the factor off', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    challenge(false, {});
    details(true, false, 'removes');
    api.optIn.mockRejectedValue(signInRequired());
    const signInAgain = jest.fn(() => Promise.reject(new Error('unreachable')));
    renderPage({ signInAgain });
    const gaSwitch = await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign in again' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The sign-in service could not be reached. Please try again.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign in again' }));
    await waitFor(() => expect(signInAgain).toHaveBeenCalledTimes(2));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: "Confirm it's you" })).not.toBeInTheDocument(),
    );
    expect(gaSwitch).not.toBeChecked();
    expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
    // Nothing to finish after a reload.
    expect(sessionStorage.getItem(PENDING_KEY)).toBeNull();
  });

  it('a password check answered 409 no_local_password (an older server) turns into the sign-in-again view', async () => {
    challenge(false, {});
    details(false, false);
    api.enrollGoogle.mockRejectedValue(
      new ApiError(
        "Confirm it's you: enter your password to turn on 2-step verification.",
        403,
        'reauthentication_required',
      ),
    );
    reauthenticateMock.mockRejectedValue(
      new ApiError('This account has no password here.', 409, 'no_local_password'),
    );
    const signInAgain = jest.fn(() => new Promise<void>(() => undefined));
    renderPage({ signInAgain });
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    await userEvent.type(within(dialog).getByLabelText('Password'), 'Wonderland-42{Enter}');
    expect(await within(dialog).findByRole('button', { name: 'Sign in again' })).toBeInTheDocument();
    expect(dialog).toHaveTextContent(SIGN_IN_TEXT);
    expect(within(dialog).queryByLabelText('Password')).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Verify to continue' })).not.toBeInTheDocument();
  });

  it("where the page's host offers no new sign-in, the dialog says how to do it by hand", async () => {
    challenge(false, {});
    details(false, false, 'removes');
    api.enrollGoogle.mockRejectedValue(signInRequired());
    renderPage();
    await switchOn('Verification with Authenticator app');
    const dialog = await confirmDialog();
    expect(dialog).toHaveTextContent(
      'For your security, you need to sign in again to turn on 2-step verification: sign out, sign in, and come back to this page.',
    );
    expect(within(dialog).queryByRole('button', { name: 'Sign in again' })).not.toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });
});

describe('recovery codes on the Security page', () => {
  const CODES = Array.from({ length: 10 }, (_, index) => `ABCDE-FGH${index}K`);
  const recoverySection = () => region('Recovery codes');

  it('shows the section under the factors, with its button once a 2-step method is on', async () => {
    challenge(false, { googleAuth: {} });
    details(true, false);
    renderPage();
    const section = await recoverySection();
    expect(await within(section).findByRole('button', { name: 'Generate recovery codes' })).toBeEnabled();
  });

  it('without a 2-step method: the button is disabled', async () => {
    challenge(false, {});
    details(false, false);
    renderPage();
    const section = await recoverySection();
    expect(await within(section).findByText('Turn on a 2-step method first')).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Generate recovery codes' })).toBeDisabled();
  });

  it('a 403 step_up_required from generate leads to the step-up screens, then generates again by itself', async () => {
    challenge(false, { googleAuth: {} });
    details(true, false);
    recovery.generateRecoveryCodes
      .mockRejectedValueOnce(new ApiError('Step-up verification required', 403, 'step_up_required'))
      .mockResolvedValueOnce({ codes: CODES, generatedAt: DATE });
    stepUp.verifyStepUp.mockResolvedValue(undefined);
    renderPage();
    const section = await recoverySection();
    await userEvent.click(await within(section).findByRole('button', { name: 'Generate recovery codes' }));

    // The check again: this time the server asks for step-up.
    stepUp.getChallenge.mockResolvedValue({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    await userEvent.type(await screen.findByLabelText('Enter authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));

    const dialog = await screen.findByRole('dialog', { name: 'Save your recovery codes' });
    expect(within(dialog).getByText(CODES[0]!)).toBeInTheDocument();
    expect(recovery.generateRecoveryCodes).toHaveBeenCalledTimes(2);
    expect(stepUp.getChallenge).toHaveBeenCalledTimes(2);
  });

  it('does not read the status again after a factor change that leaves a method on (it would race the renewal)', async () => {
    challenge(false);
    details(true, true);
    api.reset.mockResolvedValue({ status: 'NOT_ENROLLED', enrolledDate: null });
    recovery.getRecoveryCodesStatus.mockResolvedValue({
      available: true,
      left: 8,
      total: 10,
      generatedAt: DATE,
    });
    renderPage();
    expect(await screen.findByText('8 of 10 codes left · generated Mar 7, 2026')).toBeInTheDocument();
    const calls = recovery.getRecoveryCodesStatus.mock.calls.length;
    await userEvent.click((await screen.findAllByRole('button', { name: 'remove' }))[0]!);
    const dialog = await screen.findByRole('dialog', { name: /Remove your/ });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(api.reset).toHaveBeenCalledTimes(1));
    expect(await screen.findByText('8 of 10 codes left · generated Mar 7, 2026')).toBeInTheDocument();
    expect(recovery.getRecoveryCodesStatus).toHaveBeenCalledTimes(calls);
  });

  it("the step-up screens offer 'Use a recovery code' when the challenge says the holder has codes", async () => {
    stepUp.getChallenge.mockResolvedValue({
      challengeUser: true,
      activeFactorsData: { googleAuth: {} },
      recoveryCodes: { left: 5 },
    });
    details(true, false);
    stepUp.verifyRecoveryCode.mockResolvedValue(undefined);
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    await userEvent.type(screen.getByLabelText('Recovery code'), 'abcde-fghjk');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await region('Google Authenticator')).toBeInTheDocument();
    expect(stepUp.verifyRecoveryCode).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'ABCDE-FGHJK', {
      signal: expect.any(AbortSignal),
    });
  });

  it("no 'Use a recovery code' when the challenge names no codes", async () => {
    challenge(true, { googleAuth: {} });
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(await screen.findByLabelText('Enter authentication code')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use a recovery code' })).not.toBeInTheDocument();
  });
});

describe('passkeys on the Security page', () => {
  const PASSKEY = {
    id: 'pk1',
    name: 'MacBook Pro',
    createdAt: DATE,
    lastUsedAt: null,
    synced: true,
  };
  const LIST = { available: true, canRename: true, enrolment: 'ceremony' as const, passkeys: [PASSKEY] };

  beforeEach(() => {
    Object.defineProperty(window, 'PublicKeyCredential', {
      value: function PublicKeyCredential() {},
      configurable: true,
    });
  });
  afterEach(() => {
    delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
  });

  it('shows the section after the factors and before the recovery codes; a passkey counts as a 2-step method', async () => {
    challenge(false, { passkey: { count: 1 } });
    details(false, false);
    passkeys.getPasskeys.mockResolvedValue(LIST);
    renderPage();
    const section = await region('Passkeys');
    expect(await within(section).findByText('Added Mar 7, 2026 · Never used')).toBeInTheDocument();
    const recoveryCodes = await region('Recovery codes');
    const authenticator = await region('Google Authenticator');
    expect(authenticator.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(section.compareDocumentPosition(recoveryCodes) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(
      await within(recoveryCodes).findByRole('button', { name: 'Generate recovery codes' }),
    ).toBeEnabled();
  });

  it("an add that asks for step-up: the step-up screens (the passkey among them), then the add up to 'Create passkey'", async () => {
    challenge(false, { googleAuth: {}, passkey: { count: 1 } });
    details(true, false);
    passkeys.getPasskeys.mockResolvedValue(LIST);
    passkeys.getRegistrationOptions
      .mockRejectedValueOnce(new ApiError('Step-up verification required', 403, 'step_up_required'))
      .mockResolvedValueOnce({ challenge: 'bmV3' });
    jest.mocked(startRegistration).mockResolvedValue({ id: 'cred-2' } as never);
    passkeys.verifyRegistration.mockResolvedValue({ ...PASSKEY, id: 'pk2', name: 'YubiKey 5' });
    stepUp.verifyStepUp.mockResolvedValue(undefined);
    renderPage();
    await userEvent.click(
      await within(await region('Passkeys')).findByRole('button', { name: 'Add a passkey' }),
    );

    // The check again: this time the server asks for step-up.
    stepUp.getChallenge.mockResolvedValue({
      challengeUser: true,
      activeFactorsData: { googleAuth: {}, passkey: { count: 1 } },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('button', { name: 'Verify with a passkey' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    await userEvent.type(await screen.findByLabelText('Enter authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));

    // The ceremony waits for a click of its own (Safari refuses one without a fresh gesture).
    const create = await screen.findByRole('dialog', { name: 'Create your passkey' });
    expect(startRegistration).not.toHaveBeenCalled();
    await userEvent.click(within(create).getByRole('button', { name: 'Create passkey' }));
    const dialog = await screen.findByRole('dialog', { name: 'Name your passkey' });
    expect(within(dialog).getByLabelText('Name')).toHaveValue('YubiKey 5');
    expect(passkeys.getRegistrationOptions).toHaveBeenCalledTimes(2);
    expect(stepUp.getChallenge).toHaveBeenCalledTimes(2);
  });
});
