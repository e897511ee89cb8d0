import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type ActivityEvent, type ActivityPage, type PortalAuth } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import * as activityApi from '../api/activityApi.js';
import { ActivitySection } from './ActivitySection.js';

jest.mock('../api/activityApi.js');
const api = jest.mocked(activityApi);

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const event = (id: string, changes: Partial<ActivityEvent> = {}): ActivityEvent => ({
  id,
  kind: 'signed-in',
  detail: 'password-and-code',
  at: minutesAgo(5),
  browser: 'Chrome',
  os: 'Windows',
  deviceType: 'desktop',
  country: 'GB',
  address: '203.0.113.x',
  ...changes,
});
const SIGN_IN = event('e1');
const FAILED = event('e2', {
  kind: 'sign-in-failed',
  detail: 'wrong-password',
  at: minutesAgo(120),
  browser: 'Firefox',
  os: 'Linux',
  country: 'DE',
  address: '198.51.100.x',
});
const ADDED = event('e3', {
  kind: 'method-added',
  detail: 'googleAuth',
  at: minutesAgo(180),
  country: null,
  address: null,
});
const CURSOR = `1772877600000_${'a'.repeat(20)}`;
const FIRST: ActivityPage = { events: [SIGN_IN, FAILED], next: CURSOR };
const OKTA_TEXT =
  "Your organization's sign-in service keeps this account's activity; it cannot be shown here yet.";

function renderSection(first: ActivityPage = FIRST, overrides: Partial<PortalAuth> = {}) {
  api.getActivity.mockResolvedValueOnce(first);
  return renderSignedIn(<ActivitySection />, overrides);
}

const activityList = () => screen.findByRole('list', { name: 'Your activity' });
const notice = () => document.getElementById('activity-notice');
const notMeButton = (name: string) => screen.findByRole('button', { name: `This wasn't me: ${name}` });

describe('Activity section', () => {
  it('lists the events, newest first: what, when, the device and the place', async () => {
    renderSection();
    expect(screen.getByRole('heading', { level: 2, name: 'Recent activity' })).toBeInTheDocument();
    const items = within(await activityList()).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('Signed in with your password and a code');
    expect(items[0]).toHaveTextContent('5 minutes ago · Chrome · Windows · United Kingdom · 203.0.113.x');
    expect(items[1]).toHaveTextContent('Failed sign-in: wrong password');
    expect(items[1]).toHaveTextContent('2 hours ago · Firefox · Linux · Germany · 198.51.100.x');
    expect(
      within(items[0]!).getByRole('button', {
        name: "This wasn't me: Signed in with your password and a code, 5 minutes ago",
      }),
    ).toBeInTheDocument();
    expect(api.getActivity).toHaveBeenCalledWith(expect.anything(), '00u1alice', undefined, {
      signal: expect.any(AbortSignal),
    });
  });

  it('says each kind of event in its own sentence', async () => {
    const kinds: [Partial<ActivityEvent>, string][] = [
      [{ kind: 'signed-in', detail: 'passkey' }, 'Signed in with a passkey'],
      [
        { kind: 'sign-in-failed', detail: 'locked' },
        'Failed sign-in: too many attempts, sign-in locked for a while',
      ],
      [{ kind: 'password-reset', detail: null }, 'Password reset'],
      [{ kind: 'method-turned-off', detail: 'email' }, '2-step method turned off: Email'],
      [{ kind: 'recovery-codes-generated', detail: null }, 'New recovery codes generated'],
      [{ kind: 'recovery-code-used', detail: 'step-up' }, "Recovery code used to verify it's you"],
      [{ kind: 'sessions-signed-out', detail: 'others' }, 'Sessions signed out: all other devices'],
    ];
    renderSection({ events: kinds.map(([changes], index) => event(`k${index}`, changes)), next: null });
    const items = within(await activityList()).getAllByRole('listitem');
    expect(items.map((item) => item.querySelector('strong')?.textContent)).toEqual(
      kinds.map(([, text]) => text),
    );
  });

  it('pages with Show more: the next page after the cursor, the focus on its first event, no button on the last', async () => {
    renderSection();
    api.getActivity.mockResolvedValueOnce({ events: [ADDED], next: null });
    await userEvent.click(await screen.findByRole('button', { name: 'Show more' }));
    const added = await notMeButton('2-step method added: Authenticator app, 3 hours ago');
    await waitFor(() => expect(added).toHaveFocus());
    expect(within(await activityList()).getAllByRole('listitem')).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
    expect(api.getActivity).toHaveBeenLastCalledWith(expect.anything(), '00u1alice', CURSOR, {
      signal: expect.any(AbortSignal),
    });
  });

  it('a next page that cannot be read says so and keeps Show more', async () => {
    renderSection();
    api.getActivity.mockRejectedValueOnce(new ApiError('down', 500));
    await userEvent.click(await screen.findByRole('button', { name: 'Show more' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Show more' })).toHaveFocus());
    expect(within(await activityList()).getAllByRole('listitem')).toHaveLength(2);
  });

  it('no events: says so', async () => {
    renderSection({ events: [], next: null });
    expect(await screen.findByText('No activity in the last 90 days.')).toBeInTheDocument();
    expect(screen.queryByRole('list')).not.toBeInTheDocument();
  });

  it("Okta mode: the server's text, never 'no activity'", async () => {
    api.getActivity.mockRejectedValueOnce(new ApiError(OKTA_TEXT, 501, 'activity_unavailable'));
    renderSignedIn(<ActivitySection />);
    expect(await screen.findByText(OKTA_TEXT)).toBeInTheDocument();
    expect(screen.queryByText('No activity in the last 90 days.')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
  });

  it("a list that cannot be read says so (the server's text for a refusal), and Try again reads it again", async () => {
    api.getActivity
      .mockRejectedValueOnce(
        new ApiError('Resource not available for federated users', 403, 'federated_user'),
      )
      .mockResolvedValueOnce(FIRST);
    renderSignedIn(<ActivitySection />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Resource not available for federated users');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await activityList()).toBeInTheDocument();
  });

  describe("This wasn't me", () => {
    const confirmDialog = () => screen.findByRole('dialog', { name: "This wasn't you?" });

    it('asks first; Cancel reports nothing', async () => {
      renderSection();
      await userEvent.click(await notMeButton('Failed sign-in: wrong password, 2 hours ago'));
      const dialog = await confirmDialog();
      expect(dialog).toHaveTextContent('Failed sign-in: wrong password · 2 hours ago');
      expect(dialog).toHaveTextContent(
        'To protect your account, every browser and device signed in to it will be signed out, this one included. You will then sign in again and change your password.',
      );
      await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      expect(await notMeButton('Failed sign-in: wrong password, 2 hours ago')).toHaveFocus();
      expect(api.reportNotMe).not.toHaveBeenCalled();
    });

    it('on confirmation: reports the event, then a new sign-in that lands on the Password page', async () => {
      api.reportNotMe.mockResolvedValue({ status: 'SIGNED_OUT' });
      const signInAgain = jest.fn(() => new Promise<void>(() => undefined));
      const onSessionEnded = jest.fn();
      renderSection(FIRST, { signInAgain, onSessionEnded });
      await userEvent.click(await notMeButton('Failed sign-in: wrong password, 2 hours ago'));
      await userEvent.click(
        within(await confirmDialog()).getByRole('button', { name: 'Sign out everywhere' }),
      );
      await waitFor(() => expect(signInAgain).toHaveBeenCalledWith({ returnTo: '/password' }));
      expect(onSessionEnded).not.toHaveBeenCalled();
      expect(api.reportNotMe).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'e2', {
        signal: expect.any(AbortSignal),
      });
      await waitFor(() =>
        expect(notice()).toHaveTextContent(
          'You were signed out everywhere. Sign in again, then change your password.',
        ),
      );
      expect(notice()).toHaveFocus();
      expect(screen.getByRole('button', { name: /^This wasn't me: Signed in/ })).toBeDisabled();
    });

    it("a host without signInAgain: the host's own sign-in (onSessionEnded)", async () => {
      api.reportNotMe.mockResolvedValue({ status: 'SIGNED_OUT' });
      const onSessionEnded = jest.fn();
      renderSection(FIRST, { onSessionEnded });
      await userEvent.click(await notMeButton('Failed sign-in: wrong password, 2 hours ago'));
      await userEvent.click(
        within(await confirmDialog()).getByRole('button', { name: 'Sign out everywhere' }),
      );
      await waitFor(() => expect(onSessionEnded).toHaveBeenCalledTimes(1));
    });

    it('a host with no way to sign in again: the page says what to do', async () => {
      api.reportNotMe.mockResolvedValue({ status: 'SIGNED_OUT' });
      renderSection();
      await userEvent.click(await notMeButton('Failed sign-in: wrong password, 2 hours ago'));
      await userEvent.click(
        within(await confirmDialog()).getByRole('button', { name: 'Sign out everywhere' }),
      );
      await waitFor(() =>
        expect(notice()).toHaveTextContent(
          'You were signed out everywhere. Sign in again, then change your password on the Password page.',
        ),
      );
    });

    it('a report that fails says why, and takes the focus', async () => {
      api.reportNotMe.mockRejectedValue(
        new ApiError(
          "Your organization's sign-in service could not be reached. Try again.",
          502,
          'upstream_failed',
        ),
      );
      const signInAgain = jest.fn(() => Promise.resolve());
      renderSection(FIRST, { signInAgain });
      await userEvent.click(await notMeButton('Failed sign-in: wrong password, 2 hours ago'));
      await userEvent.click(
        within(await confirmDialog()).getByRole('button', { name: 'Sign out everywhere' }),
      );
      expect(await screen.findByRole('alert')).toHaveTextContent(
        "Your organization's sign-in service could not be reached. Try again.",
      );
      expect(notice()).toHaveFocus();
      expect(signInAgain).not.toHaveBeenCalled();
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    });
  });
});
