import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type AccountSession, type AccountSessionList, type PortalAuth } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import { getChallenge, verifyStepUp } from 'shared-stepup/api';
import * as devicesApi from '../api/devicesApi.js';
import { DevicesSection } from './DevicesSection.js';

jest.mock('../api/devicesApi.js');
jest.mock('shared-stepup/api');
const api = jest.mocked(devicesApi);
const getChallengeMock = jest.mocked(getChallenge);
const verifyStepUpMock = jest.mocked(verifyStepUp);

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const HERE: AccountSession = {
  id: 'here0000000000000000',
  current: true,
  browser: 'Chrome',
  os: 'Windows',
  deviceType: 'desktop',
  country: 'GB',
  address: '203.0.113.x',
  signedInAt: minutesAgo(5),
  lastActiveAt: minutesAgo(0),
};
const MAC: AccountSession = {
  id: 'mac00000000000000000',
  current: false,
  browser: 'Firefox',
  os: 'macOS',
  deviceType: 'desktop',
  country: 'DE',
  address: '198.51.100.x',
  signedInAt: minutesAgo(180),
  lastActiveAt: minutesAgo(30),
};
const PHONE: AccountSession = {
  id: 'phone000000000000000',
  current: false,
  browser: 'Safari',
  os: 'iOS',
  deviceType: 'mobile',
  country: null,
  address: '2001:db8:85a3::/48',
  signedInAt: minutesAgo(60),
  lastActiveAt: null,
};
const ALL: AccountSessionList = { sessions: [HERE, MAC, PHONE] };
const ALONE: AccountSessionList = { sessions: [HERE] };

const stepUpRequired = () =>
  new ApiError(
    'Step-up verification required: verify with one of your 2-step factors first.',
    403,
    'step_up_required',
  );
const OKTA_TEXT =
  "Your organization's sign-in service keeps this account's sessions; they cannot be listed or signed out one by one here. You can sign out everywhere.";

function renderSection(list: AccountSessionList = ALL, overrides: Partial<PortalAuth> = {}) {
  api.getSessions.mockResolvedValue(list);
  return renderSignedIn(<DevicesSection />, overrides);
}

const devicesList = () => screen.findByRole('list', { name: 'Your devices' });
const notice = () => document.getElementById('devices-notice');

beforeEach(() => localStorage.clear());

describe('Devices section', () => {
  it('lists every session, this device first and marked, with what is known of each', async () => {
    // The server's order aside, this device comes first.
    renderSection({ sessions: [MAC, HERE, PHONE] });
    expect(screen.getByRole('heading', { level: 2, name: 'Devices' })).toBeInTheDocument();
    const items = within(await devicesList()).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent('Chrome on Windows');
    expect(items[0]).toHaveTextContent('This device');
    expect(items[0]).toHaveTextContent('Desktop · United Kingdom · 203.0.113.x');
    expect(items[0]).toHaveTextContent('Signed in 5 minutes ago · Last active just now');
    expect(within(items[0]!).queryByRole('button')).not.toBeInTheDocument();
    expect(items[1]).toHaveTextContent('Firefox on macOS');
    expect(items[1]).not.toHaveTextContent('This device');
    expect(items[1]).toHaveTextContent('Desktop · Germany · 198.51.100.x');
    expect(items[1]).toHaveTextContent('Signed in 3 hours ago · Last active 30 minutes ago');
    expect(items[2]).toHaveTextContent('Mobile · 2001:db8:85a3::/48');
    expect(items[2]).not.toHaveTextContent('Last active');
    expect(within(items[1]!).getByRole('button', { name: 'Sign out Firefox on macOS' })).toBeInTheDocument();
    expect(within(items[2]!).getByRole('button', { name: 'Sign out Safari on iOS' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out of all other devices' })).toBeInTheDocument();
    expect(api.getSessions).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
  });

  it('alone: says so, and offers no sign-out', async () => {
    renderSection(ALONE);
    expect(await screen.findByText('You are not signed in on any other device.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Sign out/ })).not.toBeInTheDocument();
  });

  it('signs out another session at once; the list is the answer, and the result takes the focus', async () => {
    api.signOutSession.mockResolvedValue({ sessions: [HERE, PHONE] });
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
    await waitFor(() => expect(notice()).toHaveTextContent('Firefox on macOS was signed out.'));
    expect(notice()).toHaveFocus();
    expect(screen.queryByRole('button', { name: 'Sign out Firefox on macOS' })).not.toBeInTheDocument();
    expect(within(await devicesList()).getAllByRole('listitem')).toHaveLength(2);
    expect(api.signOutSession).toHaveBeenCalledWith(expect.anything(), '00u1alice', MAC.id, {
      signal: expect.any(AbortSignal),
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('signing out another asks for step-up, then signs it out and shows the list as it is now', async () => {
    api.signOutSession
      .mockRejectedValueOnce(stepUpRequired())
      .mockResolvedValueOnce({ sessions: [HERE, PHONE] });
    getChallengeMock.mockResolvedValue({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
    verifyStepUpMock.mockResolvedValue();
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));

    const dialog = await screen.findByRole('dialog', { name: '2-step verification' });
    expect(dialog).toHaveTextContent(
      "Your account uses 2-step verification: verify it's you before you sign out a device.",
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
    await userEvent.type(await within(dialog).findByLabelText('Enter authentication code'), '123456');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));

    await waitFor(() => expect(notice()).toHaveTextContent('Firefox on macOS was signed out.'));
    expect(notice()).toHaveFocus();
    expect(api.signOutSession).toHaveBeenCalledTimes(2);
    expect(verifyStepUpMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'google-auth', '123456', {
      signal: expect.any(AbortSignal),
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(
      within(await devicesList())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([expect.stringContaining('Chrome on Windows'), expect.stringContaining('Safari on iOS')]);
  });

  it('a step-up closed signs nothing out, and gives the focus back to the button', async () => {
    api.signOutSession.mockRejectedValue(stepUpRequired());
    getChallengeMock.mockResolvedValue({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
    const dialog = await screen.findByRole('dialog', { name: '2-step verification' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Sign out Firefox on macOS' })).toHaveFocus(),
    );
    expect(api.signOutSession).toHaveBeenCalledTimes(1);
    expect(notice()).toBeEmptyDOMElement();
  });

  it('a second step_up_required after the step-up is said, not looped', async () => {
    api.signOutSession.mockRejectedValue(stepUpRequired());
    getChallengeMock.mockResolvedValue({ challengeUser: false, activeFactorsData: {} });
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Step-up verification required');
    expect(api.signOutSession).toHaveBeenCalledTimes(2);
  });

  describe('a federated account asked to sign in again first (reauthentication_required, Okta mode)', () => {
    const SIGN_IN_AGAIN_TEXT =
      "Confirm it's you: your 2-step verification is managed by your organization. Sign in again, then sign out your devices within 5 minutes.";
    beforeEach(() =>
      api.signOutSession.mockRejectedValue(
        new ApiError(SIGN_IN_AGAIN_TEXT, 403, 'reauthentication_required'),
      ),
    );

    it('says so and offers Sign in again, which comes back to this page; no step-up screens', async () => {
      const signInAgain = jest.fn().mockResolvedValue(undefined);
      renderSection(ALL, { isFederated: true, signInAgain });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(SIGN_IN_AGAIN_TEXT);
      expect(notice()).toHaveFocus();
      expect(getChallengeMock).not.toHaveBeenCalled();
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      expect(api.signOutSession).toHaveBeenCalledTimes(1);
      await userEvent.click(screen.getByRole('button', { name: 'Sign in again' }));
      expect(signInAgain).toHaveBeenCalledWith({ returnTo: '/' });
    });

    it('says when the sign-in could not start, and keeps the button', async () => {
      const signInAgain = jest.fn().mockRejectedValue(new Error('unreachable'));
      const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      renderSection(ALL, { isFederated: true, signInAgain });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
      await userEvent.click(await screen.findByRole('button', { name: 'Sign in again' }));
      await waitFor(() =>
        expect(screen.getByRole('alert')).toHaveTextContent(
          'The sign-in service could not be reached. Please try again.',
        ),
      );
      expect(screen.getByRole('button', { name: 'Sign in again' })).toBeInTheDocument();
      expect(logged).toHaveBeenCalledWith('Sign-in could not start:', expect.any(Error));
      logged.mockRestore();
    });

    it('offers no button where the host cannot start a sign-in (a mount() without it)', async () => {
      renderSection(ALL, { isFederated: true });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(SIGN_IN_AGAIN_TEXT);
      expect(screen.queryByRole('button', { name: 'Sign in again' })).not.toBeInTheDocument();
    });
  });

  it('"Sign out of all other devices" asks first: Cancel keeps them, the confirmation signs them out', async () => {
    api.signOutOthers.mockResolvedValue(ALONE);
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out of all other devices' }));
    let dialog = await screen.findByRole('dialog', { name: 'Sign out of all other devices?' });
    expect(dialog).toHaveTextContent(
      'Every other browser and device signed in to your account will be signed out. This device stays signed in.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Sign out of all other devices' })).toHaveFocus();
    expect(api.signOutOthers).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Sign out of all other devices' }));
    dialog = await screen.findByRole('dialog', { name: 'Sign out of all other devices?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out of all other devices' }));
    await waitFor(() => expect(notice()).toHaveTextContent('Your other devices were signed out.'));
    expect(notice()).toHaveFocus();
    expect(await screen.findByText('You are not signed in on any other device.')).toBeInTheDocument();
    expect(within(await devicesList()).getAllByRole('listitem')).toHaveLength(1);
    expect(api.signOutOthers).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
  });

  it("a session gone already: the server's text, and the list read again", async () => {
    const gone = 'This session is not signed in to your account. It may have ended already.';
    api.signOutSession.mockRejectedValue(new ApiError(gone, 404, 'not_found'));
    renderSection();
    await screen.findByRole('button', { name: 'Sign out Firefox on macOS' });
    api.getSessions.mockResolvedValue({ sessions: [HERE, PHONE] });
    await userEvent.click(screen.getByRole('button', { name: 'Sign out Firefox on macOS' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(gone);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Sign out Firefox on macOS' })).not.toBeInTheDocument(),
    );
    expect(await screen.findByRole('button', { name: 'Sign out Safari on iOS' })).toBeInTheDocument();
    expect(api.getSessions).toHaveBeenCalledTimes(2);
  });

  it("a failed sign-out says the server's text where it has one, and the generic error otherwise", async () => {
    api.signOutSession
      .mockRejectedValueOnce(
        new ApiError('The account service is busy. Try again in a minute.', 503, 'service_unavailable'),
      )
      .mockRejectedValueOnce(new ApiError('boom', 500, 'internal_error'));
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The account service is busy. Try again in a minute.',
    );
    expect(notice()).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Sign out Safari on iOS' }));
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('An Unexpected Error happened...'),
    );
    expect(screen.getByRole('button', { name: 'Sign out Safari on iOS' })).toBeInTheDocument();
  });

  it('a list that cannot be read says so, and Try again reads it again', async () => {
    api.getSessions.mockRejectedValueOnce(new ApiError('down', 500)).mockResolvedValueOnce(ALL);
    renderSignedIn(<DevicesSection />);
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await devicesList()).toBeInTheDocument();
  });

  describe("Okta mode (reach: 'portal'): the sign-ins that used this portal", () => {
    const PORTAL: AccountSessionList = { sessions: [HERE, MAC, PHONE], reach: 'portal' };

    it('says what a sign-out here reaches, lists them, and offers Sign out everywhere too', async () => {
      renderSection(PORTAL);
      expect(within(await devicesList()).getAllByRole('listitem')).toHaveLength(3);
      expect(
        screen.getByText(
          'The browsers and devices that used this portal with your account in the last 8 days.',
        ),
      ).toBeInTheDocument();
      expect(
        screen.getByText(
          "Signing out a device here stops it using this portal at once. Your organization's sign-in may stay open on it for other apps: to end it there too, sign out everywhere.",
        ),
      ).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Sign out of all other devices' })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Sign out everywhere' })).toBeInTheDocument();
    });

    it('signing out one says it was signed out of this portal', async () => {
      api.signOutSession.mockResolvedValue({ sessions: [HERE, PHONE], reach: 'portal' });
      renderSection(PORTAL);
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out Firefox on macOS' }));
      await waitFor(() =>
        expect(notice()).toHaveTextContent('Firefox on macOS was signed out of this portal.'),
      );
      expect(notice()).toHaveFocus();
      expect(within(await devicesList()).getAllByRole('listitem')).toHaveLength(2);
    });

    it('"Sign out of all other devices" says what it reaches, then that they were signed out of this portal', async () => {
      api.signOutOthers.mockResolvedValue({ sessions: [HERE], reach: 'portal' });
      renderSection(PORTAL);
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out of all other devices' }));
      const dialog = await screen.findByRole('dialog', { name: 'Sign out of all other devices?' });
      expect(dialog).toHaveTextContent(
        "Every other browser and device will be signed out of this portal. Your organization's sign-in may stay open on them for other apps. This device stays signed in.",
      );
      await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out of all other devices' }));
      await waitFor(() =>
        expect(notice()).toHaveTextContent('Your other devices were signed out of this portal.'),
      );
      expect(await screen.findByText('You are not signed in on any other device.')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Sign out everywhere' })).toBeInTheDocument();
    });

    it('"Sign out everywhere" from the list asks first, then hands over to the sign-in', async () => {
      api.signOutEverywhere.mockResolvedValue({ status: 'SIGNED_OUT' });
      const onSessionEnded = jest.fn();
      renderSection(PORTAL, { onSessionEnded });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
      const dialog = await screen.findByRole('dialog', { name: 'Sign out everywhere?' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out everywhere' }));
      await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
      expect(notice()).toHaveTextContent('You were signed out everywhere. Sign in again to go on.');
    });
  });

  describe('a server that cannot list them (sessions_unavailable)', () => {
    beforeEach(() => api.getSessions.mockRejectedValue(new ApiError(OKTA_TEXT, 501, 'sessions_unavailable')));

    it("shows the server's text and Sign out everywhere, no list", async () => {
      renderSignedIn(<DevicesSection />);
      expect(await screen.findByText(OKTA_TEXT)).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Sign out everywhere' })).toBeInTheDocument();
      expect(screen.queryByRole('list')).not.toBeInTheDocument();
      expect(screen.queryByText('You are not signed in on any other device.')).not.toBeInTheDocument();
    });

    it('"Sign out everywhere" asks first, then ends every session and hands over to the sign-in', async () => {
      api.signOutEverywhere.mockResolvedValue({ status: 'SIGNED_OUT' });
      const onSessionEnded = jest.fn();
      renderSignedIn(<DevicesSection />, { onSessionEnded });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
      let dialog = await screen.findByRole('dialog', { name: 'Sign out everywhere?' });
      expect(dialog).toHaveTextContent(
        'Every browser and device signed in to your account will be signed out, this one included. You will then sign in again.',
      );
      await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      expect(api.signOutEverywhere).not.toHaveBeenCalled();

      await userEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
      dialog = await screen.findByRole('dialog', { name: 'Sign out everywhere?' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Sign out everywhere' }));
      await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
      expect(notice()).toHaveTextContent('You were signed out everywhere. Sign in again to go on.');
      expect(notice()).toHaveFocus();
      expect(api.signOutEverywhere).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
        signal: expect.any(AbortSignal),
      });
    });

    it('"Sign out everywhere" under step-up too', async () => {
      api.signOutEverywhere
        .mockRejectedValueOnce(stepUpRequired())
        .mockResolvedValueOnce({ status: 'SIGNED_OUT' });
      getChallengeMock.mockResolvedValue({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
      verifyStepUpMock.mockResolvedValue();
      const onSessionEnded = jest.fn();
      renderSignedIn(<DevicesSection />, { onSessionEnded });
      await userEvent.click(await screen.findByRole('button', { name: 'Sign out everywhere' }));
      const confirm = await screen.findByRole('dialog', { name: 'Sign out everywhere?' });
      await userEvent.click(within(confirm).getByRole('button', { name: 'Sign out everywhere' }));
      const dialog = await screen.findByRole('dialog', { name: '2-step verification' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
      await userEvent.type(await within(dialog).findByLabelText('Enter authentication code'), '123456');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
      await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
      expect(api.signOutEverywhere).toHaveBeenCalledTimes(2);
    });
  });
});
