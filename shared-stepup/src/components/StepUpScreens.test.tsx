import { render, screen, waitFor } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { AuthProvider, type ChallengeResponse, type PortalAuth } from 'shared-auth';
import { PortalThemeProvider } from 'shared-ui';
import { verifyStepUp } from '../api/stepUpApi.js';
import { stepUpStorageKey } from '../model/stepUpStorage.js';
import { StepUpScreens } from './StepUpScreens.js';

jest.mock('../api/stepUpApi.js');
const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
const verifyMock = jest.mocked(verifyStepUp);

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
    flagBaseUrl: '/flags/4x3',
    refreshUser: () => Promise.resolve(),
  };
}
const ALICE = auth('00u1alice', 'alice@example.com');
const BOB = auth('00u2bob', 'bob@example.com');

function screens(who: PortalAuth, onVerified = jest.fn()) {
  return (
    <PortalThemeProvider>
      <AuthProvider value={who}>
        <StepUpScreens activeFactorsData={BOTH} onVerified={onVerified} />
      </AuthProvider>
    </PortalThemeProvider>
  );
}

const gaHeading = () =>
  screen.queryByRole('heading', { name: 'Please check your code on Google Authenticator' });

beforeEach(() => localStorage.clear());

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
