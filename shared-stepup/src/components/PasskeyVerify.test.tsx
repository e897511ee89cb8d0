import { render, screen, waitFor } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { startAuthentication } from '@simplewebauthn/browser';
import {
  ApiError,
  AuthProvider,
  createApiClient,
  type ChallengeResponse,
  type PortalAuth,
} from 'shared-auth';
import { PortalThemeProvider } from 'shared-ui';
import { getPasskeyOptions, verifyPasskey, verifyStepUp } from '../api/stepUpApi.js';
import { stepUpStorageKey } from '../model/stepUpStorage.js';
import { StepUpScreens } from './StepUpScreens.js';

jest.mock('../api/stepUpApi.js');
jest.mock('@simplewebauthn/browser', () => ({
  startAuthentication: jest.fn(),
  startRegistration: jest.fn(),
  WebAuthnAbortService: { cancelCeremony: jest.fn() },
}));
const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
const optionsMock = jest.mocked(getPasskeyOptions);
const verifyPasskeyMock = jest.mocked(verifyPasskey);
const verifyCodeMock = jest.mocked(verifyStepUp);
const ceremony = jest.mocked(startAuthentication);

const ALICE: PortalAuth = {
  user: {
    sub: '00u1alice',
    email: 'alice@example.com',
    givenName: '',
    familyName: '',
    name: 'Alice',
    country: '',
  },
  isFederated: false,
  getAccessToken: () => 'token',
  apiBaseUrl: '',
  apiClient: createApiClient({ baseUrl: '', getAccessToken: () => 'token' }),
  flagBaseUrl: '/flags/4x3',
  refreshUser: () => Promise.resolve(),
};
const OPTIONS = { challenge: 'c2lnbi1tZQ', rpId: 'localhost', allowCredentials: [] };
const ASSERTION = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: {} };
const WITH_PASSKEY: ChallengeResponse['activeFactorsData'] = {
  email: { maskedEmail: 'a....e@example.com' },
  passkey: { count: 2 },
};

/** An error as @simplewebauthn/browser throws it: the browser's name kept, and a code of its own. */
const browserError = (name: string, code = 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY') =>
  Object.assign(new Error('The operation either timed out or was not allowed.'), { name, code });

function renderScreens(factors: ChallengeResponse['activeFactorsData'], onVerified = jest.fn()) {
  render(
    <PortalThemeProvider>
      <AuthProvider value={ALICE}>
        <StepUpScreens activeFactorsData={factors} onVerified={onVerified} onRetry={jest.fn()} />
      </AuthProvider>
    </PortalThemeProvider>,
  );
  return onVerified;
}

const passkeyHeading = () => screen.queryByRole('heading', { name: 'Use your passkey' });
const usePasskey = () => screen.getByRole('button', { name: 'Use passkey' });

function storeScreen(state: string) {
  localStorage.setItem(
    stepUpStorageKey(ALICE.user.sub),
    JSON.stringify({ value: state, expiry: Date.now() + 60_000 }),
  );
}

beforeEach(() => {
  jest.resetAllMocks();
  localStorage.clear();
  // jsdom has no WebAuthn: a browser that has it.
  Object.defineProperty(window, 'PublicKeyCredential', {
    value: function PublicKeyCredential() {},
    configurable: true,
  });
});

afterEach(() => {
  delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
});

describe('StepUpScreens: passkey', () => {
  it('is a method of the selection; its screen takes the focus, then verifies and ends the step-up', async () => {
    optionsMock.mockResolvedValue(OPTIONS);
    ceremony.mockResolvedValue(ASSERTION as never);
    verifyPasskeyMock.mockResolvedValue(undefined);
    const onVerified = renderScreens(WITH_PASSKEY);
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Verify with a passkey' }));
    expect(passkeyHeading()).toHaveFocus();
    expect(
      screen.getByText(
        'Use your fingerprint, face or screen lock, or your security key, when your browser asks.',
      ),
    ).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem(stepUpStorageKey(ALICE.user.sub))!).value).toBe('PASSKEY_VERIFY');

    await userEvent.click(usePasskey());
    await waitFor(() => expect(onVerified).toHaveBeenCalledTimes(1));
    expect(optionsMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
    expect(ceremony).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(verifyPasskeyMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', ASSERTION, {
      signal: expect.any(AbortSignal),
    });
    expect(verifyCodeMock).not.toHaveBeenCalled();
    expect(localStorage.getItem(stepUpStorageKey(ALICE.user.sub))).toBeNull();
  });

  it('the only method: Verify goes straight to its screen; Cancel returns to the start', async () => {
    renderScreens({ passkey: { count: 1 } });
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(passkeyHeading()).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Select a verification method to continue' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toHaveFocus();
  });

  it('a reload resumes the passkey screen', () => {
    storeScreen('PASSKEY_VERIFY');
    renderScreens(WITH_PASSKEY);
    expect(passkeyHeading()).toBeInTheDocument();
  });

  it.each([
    [
      'the holder cancelled, or it timed out',
      () => ceremony.mockRejectedValue(browserError('NotAllowedError')),
      'The passkey check was cancelled or timed out. Try again.',
    ],
    [
      'the authenticator cannot verify the user',
      () =>
        ceremony.mockRejectedValue(
          browserError('ConstraintError', 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT'),
        ),
      'Your passkey could not be verified.',
    ],
    [
      'the server refused the passkey (400 passkey_refused)',
      () => {
        ceremony.mockResolvedValue(ASSERTION as never);
        verifyPasskeyMock.mockRejectedValue(
          new ApiError('The passkey was not accepted.', 400, 'passkey_refused'),
        );
      },
      'Your passkey could not be verified.',
    ],
    [
      'too many tries (429)',
      () => {
        ceremony.mockResolvedValue(ASSERTION as never);
        verifyPasskeyMock.mockRejectedValue(
          new ApiError('Too many attempts. For your security, try again in 15 minutes.', 429, 'rate_limited'),
        );
      },
      'Too many attempts. For your security, try again in 15 minutes.',
    ],
    [
      'no answer from the server',
      () => {
        ceremony.mockResolvedValue(ASSERTION as never);
        verifyPasskeyMock.mockRejectedValue(new ApiError('The account service could not be reached', 0));
      },
      'The passkey could not be checked: no answer from the account service. Try again.',
    ],
  ])('%s: says so under the button, which takes the focus back', async (_case, arrange, message) => {
    optionsMock.mockResolvedValue(OPTIONS);
    arrange();
    storeScreen('PASSKEY_VERIFY');
    const onVerified = renderScreens(WITH_PASSKEY);
    await userEvent.click(usePasskey());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(usePasskey()).toHaveFocus();
    expect(usePasskey()).toHaveAccessibleDescription(message);
    expect(onVerified).not.toHaveBeenCalled();
  });

  it('tries again after a cancel', async () => {
    optionsMock.mockResolvedValue(OPTIONS);
    ceremony.mockRejectedValueOnce(browserError('NotAllowedError')).mockResolvedValueOnce(ASSERTION as never);
    verifyPasskeyMock.mockResolvedValue(undefined);
    storeScreen('PASSKEY_VERIFY');
    const onVerified = renderScreens(WITH_PASSKEY);
    await userEvent.click(usePasskey());
    await screen.findByRole('alert');
    await userEvent.click(usePasskey());
    await waitFor(() => expect(onVerified).toHaveBeenCalledTimes(1));
    expect(optionsMock).toHaveBeenCalledTimes(2);
  });

  it('a browser without passkeys: the button is disabled and says why', () => {
    delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
    storeScreen('PASSKEY_VERIFY');
    renderScreens(WITH_PASSKEY);
    expect(usePasskey()).toBeDisabled();
    expect(usePasskey()).toHaveAccessibleDescription('This browser does not support passkeys.');
  });
});
