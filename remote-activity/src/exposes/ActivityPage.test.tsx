// The page as the shell shows it: its heading, then the Devices and the Activity sections (their own tests are the
// features'); federated accounts get the sections too, and the server's refusal where it refuses them.
import { screen, within } from '@testing-library/react';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import { API_ERROR_CODES, ApiError } from 'shared-auth';
import * as activityApi from '../features/activity/api/activityApi.js';
import * as devicesApi from '../features/devices/api/devicesApi.js';
import ActivityPage from './ActivityPage.js';

jest.mock('../features/activity/api/activityApi.js');
jest.mock('../features/devices/api/devicesApi.js');
const activity = jest.mocked(activityApi);
const devices = jest.mocked(devicesApi);

const NOW = '2026-03-07T12:00:00.000Z';

const THIS_DEVICE = {
  id: 'AAAAAAAAAAAAAAAAAAAA',
  current: true,
  browser: 'Firefox',
  os: 'Linux',
  deviceType: 'desktop' as const,
  country: 'GB',
  address: '203.0.113.x',
  signedInAt: NOW,
  lastActiveAt: NOW,
};

beforeEach(() => {
  devices.getSessions.mockResolvedValue({ sessions: [THIS_DEVICE] });
  activity.getActivity.mockResolvedValue({ events: [], next: null });
});

describe('Devices & activity page', () => {
  it('shows its heading, then the Devices section, then the Activity section, with their data', async () => {
    renderSignedIn(<ActivityPage />);
    const title = screen.getByRole('heading', { level: 1, name: 'Devices & activity' });
    const devicesSection = await screen.findByRole('region', { name: 'Devices' });
    const activitySection = await screen.findByRole('region', { name: 'Recent activity' });
    expect(title.compareDocumentPosition(devicesSection) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(
      devicesSection.compareDocumentPosition(activitySection) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    expect(await within(devicesSection).findByText('This device')).toBeInTheDocument();
    expect(await within(activitySection).findByText('No activity in the last 90 days.')).toBeInTheDocument();
    expect(devices.getSessions).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
    expect(activity.getActivity).toHaveBeenCalledWith(expect.anything(), '00u1alice', undefined, {
      signal: expect.any(AbortSignal),
    });
  });

  it('reads the activity again after a device is signed out, so the sign-out shows as the newest event', async () => {
    const other = {
      id: 'BBBBBBBBBBBBBBBBBBBB',
      current: false,
      browser: 'Safari',
      os: 'iOS',
      deviceType: 'mobile' as const,
      country: 'GB',
      address: '203.0.113.x',
      signedInAt: NOW,
      lastActiveAt: NOW,
    };
    devices.getSessions.mockResolvedValue({ sessions: [THIS_DEVICE, other] });
    devices.signOutSession.mockResolvedValue({ sessions: [THIS_DEVICE] });
    renderSignedIn(<ActivityPage />);
    const activitySection = await screen.findByRole('region', { name: 'Recent activity' });
    await within(activitySection).findByText('No activity in the last 90 days.');
    expect(activity.getActivity).toHaveBeenCalledTimes(1);
    activity.getActivity.mockResolvedValue({
      events: [
        {
          id: 'CCCCCCCCCCCCCCCCCCCC',
          kind: 'sessions-signed-out',
          detail: 'one',
          at: NOW,
          browser: 'Firefox',
          os: 'Linux',
          deviceType: 'desktop',
          country: 'GB',
          address: '203.0.113.x',
        },
      ],
      next: null,
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out Safari on iOS' }));
    expect(await screen.findByText('Safari on iOS was signed out.')).toBeInTheDocument();
    expect(
      await within(activitySection).findByText('Sessions signed out: another device'),
    ).toBeInTheDocument();
    expect(activity.getActivity).toHaveBeenCalledTimes(2);
  });

  it("shows federated users their devices and activity where the server answers (an Okta org's data)", async () => {
    renderSignedIn(<ActivityPage />, { isFederated: true });
    const devicesSection = await screen.findByRole('region', { name: 'Devices' });
    expect(await within(devicesSection).findByText('This device')).toBeInTheDocument();
    const activitySection = await screen.findByRole('region', { name: 'Recent activity' });
    expect(await within(activitySection).findByText('No activity in the last 90 days.')).toBeInTheDocument();
  });

  it.each([
    ['both sections', true, true],
    ['the Devices list alone', true, false],
    ['the Activity list alone', false, true],
  ])(
    "shows federated users the spec's one line where the server refuses them (%s refused: the portal's own provider's data)",
    async (_name, devicesRefused, activityRefused) => {
      const refusal = 'Security settings are not available for federated users';
      if (devicesRefused)
        devices.getSessions.mockRejectedValue(new ApiError(refusal, 403, API_ERROR_CODES.federatedUser));
      if (activityRefused)
        activity.getActivity.mockRejectedValue(new ApiError(refusal, 403, API_ERROR_CODES.federatedUser));
      renderSignedIn(<ActivityPage />, { isFederated: true });
      expect(await screen.findByText('Resource not available for federated users')).toBeInTheDocument();
      expect(screen.getByRole('heading', { level: 1, name: 'Devices & activity' })).toBeInTheDocument();
      expect(screen.queryByRole('region', { name: 'Devices' })).not.toBeInTheDocument();
      expect(screen.queryByRole('region', { name: 'Recent activity' })).not.toBeInTheDocument();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(screen.queryByText(refusal)).not.toBeInTheDocument();
    },
  );
});
