import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import {
  ApiError,
  AuthProvider,
  createApiClient,
  INVALID_CODE_ERROR,
  type ChallengeResponse,
  type PortalAuth,
} from 'shared-auth';
import { PortalThemeProvider } from 'shared-ui';
import { sendEmailChallenge, verifyRecoveryCode, verifyStepUp } from '../api/stepUpApi.js';
import { stepUpStorageKey } from '../model/stepUpStorage.js';
import { StepUpScreens } from './StepUpScreens.js';

jest.mock('../api/stepUpApi.js');
const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
const verifyMock = jest.mocked(verifyStepUp);
const sendMock = jest.mocked(sendEmailChallenge);
const verifyRecoveryMock = jest.mocked(verifyRecoveryCode);

const BOTH: ChallengeResponse['activeFactorsData'] = {
  googleAuth: {},
  email: { maskedEmail: 'a....e@example.com' },
};

function auth(sub: string, email: string): PortalAuth {
  return {
    user: { sub, email, givenName: '', familyName: '', name: email, country: '' },
    isFederated: false,
    getAccessToken: () => 'token',
    apiBaseUrl: '',
    apiClient: createApiClient({ baseUrl: '', getAccessToken: () => 'token' }),
    flagBaseUrl: '/flags/4x3',
    refreshUser: () => Promise.resolve(),
  };
}
const ALICE = auth('00u1alice', 'alice@example.com');
const BOB = auth('00u2bob', 'bob@example.com');

function screens(
  who: PortalAuth,
  onVerified = jest.fn(),
  {
    factors = BOTH,
    onRetry = jest.fn(),
    recoveryCodes,
    preferredMethod,
  }: {
    factors?: typeof BOTH;
    onRetry?: () => void;
    recoveryCodes?: ChallengeResponse['recoveryCodes'];
    preferredMethod?: ChallengeResponse['preferredMethod'];
  } = {},
) {
  return (
    <PortalThemeProvider>
      <AuthProvider value={who}>
        <StepUpScreens
          activeFactorsData={factors}
          recoveryCodes={recoveryCodes}
          preferredMethod={preferredMethod}
          onVerified={onVerified}
          onRetry={onRetry}
        />
      </AuthProvider>
    </PortalThemeProvider>
  );
}

const gaHeading = () =>
  screen.queryByRole('heading', { name: 'Please check your code on Google Authenticator' });

function storeScreen(state: string) {
  localStorage.setItem(
    stepUpStorageKey(ALICE.user.sub),
    JSON.stringify({ value: state, expiry: Date.now() + 60_000 }),
  );
}

beforeEach(() => {
  jest.resetAllMocks();
  localStorage.clear();
});

describe('StepUpScreens', () => {
  it("resumes the user's own stored screen", async () => {
    localStorage.setItem(
      stepUpStorageKey(ALICE.user.sub),
      JSON.stringify({ value: 'GA_VERIFY', expiry: Date.now() + 60_000 }),
    );
    render(screens(ALICE));
    expect(gaHeading()).toBeInTheDocument();
  });

  it("never resumes another user's screen on the same browser, and keeps the first user's", async () => {
    const alice = render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(gaHeading()).toBeInTheDocument();
    alice.unmount();

    const bob = render(screens(BOB));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
    expect(gaHeading()).not.toBeInTheDocument();
    bob.unmount();

    render(screens(ALICE));
    expect(gaHeading()).toBeInTheDocument();
  });

  it('starts over when another user takes the page without a reload', async () => {
    const { rerender } = render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('button', { name: 'Verify with Email' })).toBeInTheDocument();
    rerender(screens(BOB));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
  });

  it("verifies with the signed-in user's id, then forgets the stored screen", async () => {
    verifyMock.mockResolvedValue(undefined);
    localStorage.setItem(
      stepUpStorageKey(ALICE.user.sub),
      JSON.stringify({ value: 'GA_VERIFY', expiry: Date.now() + 60_000 }),
    );
    const onVerified = jest.fn();
    render(screens(ALICE, onVerified));
    await userEvent.type(screen.getByLabelText('Enter authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onVerified).toHaveBeenCalledTimes(1));
    expect(verifyMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'google-auth', '123456', {
      signal: expect.any(AbortSignal),
    });
    expect(localStorage.getItem(stepUpStorageKey(ALICE.user.sub))).toBeNull();
  });
});

describe('StepUpScreens: what a failed verify says', () => {
  it.each([
    ['a wrong code', new ApiError(INVALID_CODE_ERROR, 400, 'invalid_code'), 'Invalid verification code'],
    [
      'a wrong code (by its code)',
      new ApiError('Wrong code', 400, 'invalid_code'),
      'Invalid verification code',
    ],
    [
      'too many tries',
      new ApiError('Too many wrong codes. For your security, try again in 15 minutes.', 429, 'rate_limited'),
      'Too many wrong codes. For your security, try again in 15 minutes.',
    ],
    [
      'no answer',
      new ApiError('The account service could not be reached', 0),
      'The code could not be checked: no answer from the account service. Try again.',
    ],
    [
      'a 5xx',
      new ApiError('The account service answered 502', 502),
      'The code could not be checked: the account service had a problem. Try again in a moment.',
    ],
    [
      'a 403',
      new ApiError('Federated users cannot do this.', 403),
      'The code could not be checked: Federated users cannot do this.',
    ],
  ])('%s', async (_case, error, message) => {
    verifyMock.mockRejectedValue(error);
    storeScreen('GA_VERIFY');
    render(screens(ALICE));
    await userEvent.type(screen.getByLabelText('Enter authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.queryByRole('dialog', { name: 'Verifying' })).not.toBeInTheDocument();
  });

  it("the email screen's wrong code has its own text", async () => {
    verifyMock.mockRejectedValue(new ApiError(INVALID_CODE_ERROR, 400, 'invalid_code'));
    storeScreen('EMAIL_VERIFY');
    render(screens(ALICE));
    await userEvent.type(screen.getByLabelText('Enter authentication code'), ' 123456 ');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid authentication code');
  });
});

describe('StepUpScreens: focus', () => {
  it('each new screen takes the focus: its heading, or the code field', async () => {
    render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    const selection = await screen.findByRole('heading', {
      name: 'Select a verification method to continue',
    });
    await waitFor(() => expect(selection).toHaveFocus());

    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(screen.getByLabelText('Enter authentication code')).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('heading', { name: 'Select a verification method to continue' })).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Verify with Email' }));
    expect(screen.getByRole('heading', { name: 'Verify with Email' })).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await userEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toHaveFocus();
  });

  it('does not take the focus for the first screen', () => {
    render(screens(ALICE));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).not.toHaveFocus();
  });
});

describe('StepUpScreens: email code', () => {
  afterEach(() => jest.useRealTimers());

  it('sends, moves the focus to the code field, and offers Resend after 30 seconds', async () => {
    jest.useFakeTimers();
    sendMock.mockResolvedValue(undefined);
    storeScreen('EMAIL_VERIFY');
    render(screens(ALICE));
    fireEvent.click(screen.getByRole('button', { name: 'Send authentication code' }));
    expect(
      await screen.findByRole('button', { name: 'Authentication code sent to a....e@example.com' }),
    ).toBeDisabled();
    expect(screen.getByLabelText('Enter authentication code')).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Resend (30s)' })).toBeDisabled();

    act(() => jest.advanceTimersByTime(29_000));
    expect(screen.getByRole('button', { name: 'Resend (1s)' })).toBeDisabled();
    act(() => jest.advanceTimersByTime(1000));
    const resend = screen.getByRole('button', { name: 'Resend Code' });
    expect(resend).toBeEnabled();

    fireEvent.click(resend);
    expect(await screen.findByRole('button', { name: 'Resend (30s)' })).toBeDisabled();
    expect(sendMock).toHaveBeenCalledTimes(2);
  });

  it('a send refused as too soon says the wait and counts it down', async () => {
    jest.useFakeTimers();
    sendMock.mockRejectedValue(
      Object.assign(
        new ApiError(
          'A code was sent less than 30 seconds ago. Wait 12 seconds before asking for another.',
          429,
          'rate_limited',
        ),
        { retryAfterSeconds: 12 },
      ),
    );
    storeScreen('EMAIL_VERIFY');
    render(screens(ALICE));
    fireEvent.click(screen.getByRole('button', { name: 'Send authentication code' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Wait 12 seconds before asking for another.');
    expect(screen.getByRole('button', { name: 'Send authentication code' })).toBeDisabled();
    act(() => jest.advanceTimersByTime(12_000));
    expect(screen.getByRole('button', { name: 'Send authentication code' })).toBeEnabled();
  });
});

describe("StepUpScreens: 'Error' has a way out", () => {
  it('Try again after a failed send returns to the start, which takes the focus', async () => {
    sendMock.mockRejectedValue(new ApiError('The verification email could not be sent.', 502));
    storeScreen('EMAIL_VERIFY');
    render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Send authentication code' }));
    expect(await screen.findByText('Error')).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toHaveFocus();
  });

  it('Try again without factors asks the page to check again', async () => {
    const onRetry = jest.fn();
    render(screens(ALICE, jest.fn(), { factors: {}, onRetry }));
    expect(screen.getByText('Error')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });
});

describe('StepUpScreens: Use a recovery code', () => {
  const CODES = { left: 4 };
  const recoveryHeading = () => screen.queryByRole('heading', { name: 'Use a recovery code' });

  it('is offered on the selection and under the code screens only when the holder has codes', async () => {
    const without = render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await screen.findByRole('heading', { name: 'Select a verification method to continue' });
    expect(screen.queryByRole('button', { name: 'Use a recovery code' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(screen.queryByRole('button', { name: 'Use a recovery code' })).not.toBeInTheDocument();
    without.unmount();
    localStorage.clear();

    render(screens(ALICE, jest.fn(), { recoveryCodes: CODES }));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await screen.findByRole('heading', { name: 'Select a verification method to continue' });
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Email' }));
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    await userEvent.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    expect(recoveryHeading()).toBeInTheDocument();
    expect(screen.getByLabelText('Recovery code')).toHaveFocus();
  });

  it('one factor: its code screen offers it; Back returns there, Cancel to the start', async () => {
    render(screens(ALICE, jest.fn(), { factors: { googleAuth: {} }, recoveryCodes: CODES }));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    expect(recoveryHeading()).toBeInTheDocument();
    expect(
      screen.getByText('Enter one of the recovery codes you saved. Each code works once.'),
    ).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem(stepUpStorageKey(ALICE.user.sub))!).value).toBe(
      'RECOVERY_CODE_VERIFY',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(gaHeading()).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
  });

  it('takes the code with or without the dash, any case, spaces trimmed, and sends it as XXXXX-XXXXX', async () => {
    verifyRecoveryMock.mockResolvedValue(undefined);
    storeScreen('RECOVERY_CODE_VERIFY');
    const onVerified = jest.fn();
    render(screens(ALICE, onVerified, { recoveryCodes: CODES }));
    const field = screen.getByLabelText('Recovery code');
    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await userEvent.type(field, 'abcde');
    expect(verify).toBeDisabled();
    await userEvent.type(field, ' fghjk ');
    expect(verify).toBeEnabled();
    await userEvent.click(verify);
    await waitFor(() => expect(onVerified).toHaveBeenCalledTimes(1));
    expect(verifyRecoveryMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'ABCDE-FGHJK', {
      signal: expect.any(AbortSignal),
    });
    expect(verifyMock).not.toHaveBeenCalled();
    expect(localStorage.getItem(stepUpStorageKey(ALICE.user.sub))).toBeNull();
  });

  it.each([
    [
      'a wrong or used code',
      new ApiError(INVALID_CODE_ERROR, 400, 'invalid_code'),
      'Invalid recovery code. Each code works once.',
    ],
    [
      'too many tries',
      new ApiError('Too many wrong codes. For your security, try again in 15 minutes.', 429, 'rate_limited'),
      'Too many wrong codes. For your security, try again in 15 minutes.',
    ],
    [
      'codes not taken here',
      new ApiError('Recovery codes are not available.', 409, 'recovery_codes_unavailable'),
      'The code could not be checked: Recovery codes are not available.',
    ],
  ])('%s: the text shows under the field', async (_case, error, message) => {
    verifyRecoveryMock.mockRejectedValue(error);
    storeScreen('RECOVERY_CODE_VERIFY');
    const onVerified = jest.fn();
    render(screens(ALICE, onVerified, { recoveryCodes: CODES }));
    await userEvent.type(screen.getByLabelText('Recovery code'), 'ABCDE-FGHJK');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByLabelText('Recovery code')).toHaveAttribute('aria-invalid', 'true');
    expect(onVerified).not.toHaveBeenCalled();
  });

  it('a stored recovery-code screen is not resumed once the holder has no codes left', () => {
    storeScreen('RECOVERY_CODE_VERIFY');
    render(screens(ALICE));
    expect(recoveryHeading()).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
  });
});

describe('StepUpScreens with a default method (issue 22)', () => {
  it('Verify opens the default first; "Use another method" lists every method, the default first', async () => {
    sendMock.mockResolvedValue(undefined);
    render(screens(ALICE, jest.fn(), { preferredMethod: 'email' }));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(/a\.\.\.\.e@example\.com/)).toBeInTheDocument();
    expect(gaHeading()).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Use another method' }));
    expect(
      await screen.findByRole('heading', { name: 'Select a verification method to continue' }),
    ).toBeInTheDocument();
    const methods = screen
      .getAllByRole('button', { name: /^Verify with/ })
      .map((button) => button.textContent);
    expect(methods).toEqual(['Verify with Email', 'Verify with Google Authenticator']);
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(gaHeading()).toBeInTheDocument();
  });

  it('without a default: the selection in the fixed order, and no "Use another method"', async () => {
    render(screens(ALICE));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Verify with Google Authenticator' }));
    expect(gaHeading()).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use another method' })).not.toBeInTheDocument();
  });

  it('a default that is not active is ignored: the fixed order', async () => {
    render(screens(ALICE, jest.fn(), { factors: { googleAuth: {} }, preferredMethod: 'passkey' }));
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(gaHeading()).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use another method' })).not.toBeInTheDocument();
  });
});
