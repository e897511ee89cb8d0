import { screen, waitFor, within } from '@testing-library/react';
import { startRegistration } from '@simplewebauthn/browser';
import { ApiError, type Passkey, type PasskeyList } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import { leavePageFor } from '../../../lib/navigation.js';
import { pendingActionStorageKey } from '../../../lib/reauthentication/pendingAction.js';
import { reauthenticate } from '../../../lib/reauthentication/reauthenticate.js';
import * as passkeysApi from '../api/passkeysApi.js';
import type { PasskeyResume } from '../hooks/usePasskeys.js';
import { PasskeysSection, type PasskeysSectionProps } from './PasskeysSection.js';

jest.mock('../api/passkeysApi.js');
jest.mock('../../../lib/reauthentication/reauthenticate.js');
jest.mock('../../../lib/navigation.js');
jest.mock('@simplewebauthn/browser', () => ({
  startAuthentication: jest.fn(),
  startRegistration: jest.fn(),
  WebAuthnAbortService: { cancelCeremony: jest.fn() },
}));
const api = jest.mocked(passkeysApi);
const ceremony = jest.mocked(startRegistration);
const reauthenticateMock = jest.mocked(reauthenticate);
const leave = jest.mocked(leavePageFor);
const PENDING_KEY = pendingActionStorageKey('00u1alice');

const LAPTOP: Passkey = {
  id: 'pk1',
  name: 'MacBook Pro',
  createdAt: '2026-03-07T12:00:00.000Z',
  lastUsedAt: '2026-04-01T08:00:00.000Z',
  synced: true,
};
const KEY: Passkey = {
  id: 'pk2',
  name: 'YubiKey 5',
  createdAt: '2026-03-09T12:00:00.000Z',
  lastUsedAt: null,
  synced: false,
};
const LIST: PasskeyList = { available: true, canRename: true, enrolment: 'ceremony', passkeys: [LAPTOP] };
const OPTIONS = { challenge: 'bmV3LXBhc3NrZXk', rp: { name: 'My Profile' } };
const ANSWER = { id: 'cred-2', rawId: 'cred-2', type: 'public-key', response: {} };

const browserError = (name: string, code = 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY') =>
  Object.assign(new Error('The operation either timed out or was not allowed.'), { name, code });

function renderSection(list: PasskeyList = LIST, props: Partial<PasskeysSectionProps> = {}) {
  api.getPasskeys.mockResolvedValue(list);
  const all: PasskeysSectionProps = {
    onStepUpRequired: jest.fn(),
    resume: null,
    onResumeStarted: jest.fn(),
    onCountChange: jest.fn(),
    ...props,
  };
  renderSignedIn(<PasskeysSection {...all} />);
  return all;
}

const section = () => screen.findByRole('region', { name: 'Passkeys' });
const addButton = () => screen.findByRole('button', { name: 'Add a passkey' });
const nameDialog = () => screen.findByRole('dialog', { name: 'Name your passkey' });
const createDialog = () => screen.findByRole('dialog', { name: 'Create your passkey' });
const HOSTED_URL = 'https://example.okta.com/idp/passkeys/enroll?return=security';

/** Add a passkey, through to the server's answer with its default name. */
function addingSucceeds() {
  api.getRegistrationOptions.mockResolvedValue(OPTIONS);
  ceremony.mockResolvedValue(ANSWER as never);
  api.verifyRegistration.mockResolvedValue(KEY);
}

beforeEach(() => {
  jest.resetAllMocks();
  sessionStorage.clear();
  Object.defineProperty(window, 'PublicKeyCredential', {
    value: function PublicKeyCredential() {},
    configurable: true,
  });
});

afterEach(() => {
  delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
});

describe('Passkeys section', () => {
  it('lists the passkeys: name, Synced, when added and last used, or never used', async () => {
    const { onCountChange } = renderSection({ ...LIST, passkeys: [LAPTOP, KEY] });
    const region = await section();
    expect(
      within(region).getByText(
        'Sign in with your fingerprint, face or screen lock, or a security key, instead of a code.',
      ),
    ).toBeInTheDocument();
    const items = within(await within(region).findByRole('list', { name: 'Your passkeys' })).getAllByRole(
      'listitem',
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('MacBook Pro');
    expect(items[0]).toHaveTextContent('Synced');
    expect(items[0]).toHaveTextContent('Added Mar 7, 2026 · Last used Apr 1, 2026');
    expect(items[1]).toHaveTextContent('YubiKey 5');
    expect(items[1]).not.toHaveTextContent('Synced');
    expect(items[1]).toHaveTextContent('Added Mar 9, 2026 · Never used');
    expect(within(items[0]!).getByRole('button', { name: 'Rename MacBook Pro' })).toBeInTheDocument();
    expect(within(items[1]!).getByRole('button', { name: 'Remove YubiKey 5' })).toBeInTheDocument();
    expect(onCountChange).toHaveBeenCalledWith(2);
    expect(api.getPasskeys).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
  });

  it('is hidden where passkeys are not available', async () => {
    renderSection({ ...LIST, available: false });
    await waitFor(() => expect(api.getPasskeys).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Passkeys' })).not.toBeInTheDocument());
    expect(screen.queryByLabelText('Loading Passkeys')).not.toBeInTheDocument();
  });

  it('without names of ours (Okta mode): no Rename; hosted without an enrolment page: no Add', async () => {
    renderSection({ ...LIST, canRename: false, enrolment: 'hosted' });
    expect(await screen.findByRole('button', { name: 'Remove MacBook Pro' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Rename MacBook Pro' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).not.toBeInTheDocument();
  });

  it("hosted (Okta mode): Add says where it goes, and leaves for the identity provider's page", async () => {
    renderSection({ ...LIST, canRename: false, enrolment: 'hosted', hostedEnrolmentUrl: HOSTED_URL });
    const add = await addButton();
    const note = "You will add your passkey on your organization's sign-in page, then come back here.";
    expect(within(await section()).getByText(note)).toBeInTheDocument();
    expect(add).toHaveAccessibleDescription(note);
    await userEvent.click(add);
    expect(leave).toHaveBeenCalledWith(HOSTED_URL);
    expect(api.getRegistrationOptions).not.toHaveBeenCalled();
    expect(ceremony).not.toHaveBeenCalled();
  });

  it('ceremony mode: no word of another page under Add', async () => {
    renderSection();
    await addButton();
    expect(screen.queryByText(/organization's sign-in page/)).not.toBeInTheDocument();
  });

  it('a failed read shows the error view, and Try again reads it again', async () => {
    api.getPasskeys.mockRejectedValueOnce(new ApiError('down', 500)).mockResolvedValueOnce(LIST);
    renderSignedIn(
      <PasskeysSection onStepUpRequired={jest.fn()} resume={null} onResumeStarted={jest.fn()} />,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await addButton()).toBeEnabled();
  });

  it('a browser without passkeys: Add is disabled and says why, and the WebAuthn code never loads', async () => {
    delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
    renderSection({ ...LIST, passkeys: [] });
    const add = await addButton();
    expect(add).toBeDisabled();
    expect(add).toHaveAccessibleDescription('This browser does not support passkeys.');
    expect(screen.getByText('You have no passkeys yet.')).toBeInTheDocument();
    expect(ceremony).not.toHaveBeenCalled();
  });
});

describe('Passkeys: add', () => {
  it('runs the ceremony, then asks for a name pre-filled with the default; Save renames it', async () => {
    addingSucceeds();
    api.renamePasskey.mockResolvedValue({ ...KEY, name: 'Desk key' });
    const { onCountChange } = renderSection();
    await userEvent.click(await addButton());
    const dialog = await nameDialog();
    expect(ceremony).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(api.verifyRegistration).toHaveBeenCalledWith(expect.anything(), '00u1alice', ANSWER, {
      signal: expect.any(AbortSignal),
    });
    const field = within(dialog).getByLabelText('Name');
    expect(field).toHaveValue('YubiKey 5');
    await waitFor(() => expect(field).toHaveFocus());
    expect(await screen.findByText('Your passkey is set up.')).toBeInTheDocument();

    await userEvent.clear(field);
    await userEvent.type(field, 'Desk key');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Name your passkey' })).toBeNull());
    expect(api.renamePasskey).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'pk2', 'Desk key', {
      signal: expect.any(AbortSignal),
    });
    expect(screen.getByRole('button', { name: 'Rename Desk key' })).toHaveFocus();
    expect(onCountChange).toHaveBeenLastCalledWith(2);
  });

  it('Skip keeps the default name', async () => {
    addingSucceeds();
    renderSection();
    await userEvent.click(await addButton());
    await userEvent.click(within(await nameDialog()).getByRole('button', { name: 'Skip' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Name your passkey' })).toBeNull());
    expect(screen.getByRole('button', { name: 'Rename YubiKey 5' })).toHaveFocus();
    expect(api.renamePasskey).not.toHaveBeenCalled();
  });

  it('without names of ours, no name dialog: the new passkey shows with its name', async () => {
    addingSucceeds();
    renderSection({ ...LIST, canRename: false });
    await userEvent.click(await addButton());
    expect(await screen.findByRole('button', { name: 'Remove YubiKey 5' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
  });

  it.each([
    [
      'cancelled or timed out',
      () => ceremony.mockRejectedValue(browserError('NotAllowedError')),
      'Adding the passkey was cancelled or timed out. Try again.',
    ],
    [
      'an authenticator that cannot verify the user',
      () =>
        ceremony.mockRejectedValue(
          browserError('ConstraintError', 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT'),
        ),
      'Your passkey could not be verified.',
    ],
    [
      'refused by the server',
      () => {
        ceremony.mockResolvedValue(ANSWER as never);
        api.verifyRegistration.mockRejectedValue(
          new ApiError('The passkey was not accepted.', 400, 'passkey_refused'),
        );
      },
      'The passkey was not accepted.',
    ],
  ])('%s: says so, nothing added, and Add takes the focus back', async (_case, arrange, message) => {
    api.getRegistrationOptions.mockResolvedValue(OPTIONS);
    arrange();
    renderSection();
    await userEvent.click(await addButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
  });

  it('the first 2-step method: "Confirm it\'s you", then the same add, its ceremony on a click of its own', async () => {
    api.getRegistrationOptions
      .mockRejectedValueOnce(new ApiError("Confirm it's you", 403, 'reauthentication_required'))
      .mockResolvedValueOnce(OPTIONS);
    ceremony.mockResolvedValue(ANSWER as never);
    api.verifyRegistration.mockResolvedValue(KEY);
    reauthenticateMock.mockResolvedValue(undefined);
    renderSection({ ...LIST, passkeys: [] });
    await userEvent.click(await addButton());
    const confirm = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await userEvent.type(within(confirm).getByLabelText('Password'), 'correct horse');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    // Safari refuses a ceremony that no fresh click started: it waits for 'Create passkey'.
    const create = await createDialog();
    expect(create).toHaveTextContent(
      'Select Create passkey, then use your fingerprint, face or screen lock, or your security key, when your browser asks.',
    );
    const button = within(create).getByRole('button', { name: 'Create passkey' });
    await waitFor(() => expect(button).toHaveFocus());
    expect(ceremony).not.toHaveBeenCalled();
    await userEvent.click(button);
    expect(await nameDialog()).toBeInTheDocument();
    expect(ceremony).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(reauthenticateMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'correct horse', {
      signal: expect.any(AbortSignal),
    });
    expect(api.getRegistrationOptions).toHaveBeenCalledTimes(2);
  });

  it('"Confirm it\'s you" cancelled: nothing added, nothing said, the focus back on Add', async () => {
    api.getRegistrationOptions.mockRejectedValue(
      new ApiError("Confirm it's you", 403, 'reauthentication_required'),
    );
    renderSection({ ...LIST, passkeys: [] });
    await userEvent.click(await addButton());
    const confirm = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(ceremony).not.toHaveBeenCalled();
  });

  it('a 403 step_up_required hands over to the step-up screens, without an error', async () => {
    api.getRegistrationOptions.mockRejectedValueOnce(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    const { onStepUpRequired } = renderSection();
    await userEvent.click(await addButton());
    await waitFor(() => expect(onStepUpRequired).toHaveBeenCalledWith({ type: 'ADD' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("back from step-up: the add goes on up to 'Create passkey', whose click starts the ceremony, once", async () => {
    addingSucceeds();
    const resume: PasskeyResume = { type: 'ADD' };
    const { onResumeStarted } = renderSection(LIST, { resume });
    const create = await createDialog();
    expect(api.getRegistrationOptions).toHaveBeenCalledTimes(1);
    expect(ceremony).not.toHaveBeenCalled();
    await userEvent.click(within(create).getByRole('button', { name: 'Create passkey' }));
    expect(await nameDialog()).toBeInTheDocument();
    expect(onResumeStarted).toHaveBeenCalledTimes(1);
    expect(api.getRegistrationOptions).toHaveBeenCalledTimes(1);
    expect(ceremony).toHaveBeenCalledTimes(1);
  });

  it("'Create your passkey' cancelled: nothing added, nothing said, the focus back on Add", async () => {
    addingSucceeds();
    renderSection(LIST, { resume: { type: 'ADD' } });
    await userEvent.click(within(await createDialog()).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
    expect(screen.queryByRole('dialog', { name: 'Create your passkey' })).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(ceremony).not.toHaveBeenCalled();
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
  });

  it("after 'Create passkey', a failed ceremony says so as any other", async () => {
    api.getRegistrationOptions.mockResolvedValue(OPTIONS);
    ceremony.mockRejectedValue(browserError('NotAllowedError'));
    renderSection(LIST, { resume: { type: 'ADD' } });
    await userEvent.click(within(await createDialog()).getByRole('button', { name: 'Create passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Adding the passkey was cancelled or timed out. Try again.',
    );
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
  });

  it('back from step-up, a second step_up_required is an error, not a loop', async () => {
    api.getRegistrationOptions.mockRejectedValue(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    const { onStepUpRequired } = renderSection(LIST, { resume: { type: 'ADD' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    expect(onStepUpRequired).not.toHaveBeenCalled();
  });
});

describe("Passkeys: 'Sign in again' (Okta mode), then back to the add", () => {
  const signInRequired = () =>
    new ApiError("Confirm it's you", 403, 'reauthentication_required', undefined, 'sign-in');

  it('remembers the add for this holder before leaving', async () => {
    api.getRegistrationOptions.mockRejectedValue(signInRequired());
    const signInAgain = jest.fn(() => new Promise<void>(() => undefined));
    api.getPasskeys.mockResolvedValue({ ...LIST, passkeys: [] });
    const now = Date.now();
    const first = renderSignedIn(
      <PasskeysSection onStepUpRequired={jest.fn()} resume={null} onResumeStarted={jest.fn()} />,
      { signInAgain },
    );
    await userEvent.click(await addButton());
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign in again' }));
    expect(first.signInAgain).toHaveBeenCalledWith({ returnTo: window.location.pathname });
    expect(JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null')).toEqual({
      feature: 'passkeys',
      key: 'passkey',
      sub: '00u1alice',
      savedAt: expect.any(Number),
    });
    expect(JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? '{}').savedAt).toBeGreaterThanOrEqual(now);
  });

  it('a sign-in that cannot start forgets the add: a reload then resumes nothing', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    api.getRegistrationOptions.mockRejectedValue(signInRequired());
    api.getPasskeys.mockResolvedValue(LIST);
    renderSignedIn(
      <PasskeysSection onStepUpRequired={jest.fn()} resume={null} onResumeStarted={jest.fn()} />,
      { signInAgain: jest.fn(() => Promise.reject(new Error('unreachable'))) },
    );
    await userEvent.click(await addButton());
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Sign in again' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The sign-in service could not be reached. Please try again.',
    );
    expect(sessionStorage.getItem(PENDING_KEY)).toBeNull();
  });

  it("back from the sign-in: the add goes on to 'Create passkey', once, and the record is gone", async () => {
    addingSucceeds();
    sessionStorage.setItem(
      PENDING_KEY,
      JSON.stringify({ feature: 'passkeys', key: 'passkey', sub: '00u1alice', savedAt: Date.now() - 30_000 }),
    );
    renderSection();
    const create = await createDialog();
    expect(sessionStorage.getItem(PENDING_KEY)).toBeNull();
    expect(ceremony).not.toHaveBeenCalled();
    await userEvent.click(within(create).getByRole('button', { name: 'Create passkey' }));
    expect(await nameDialog()).toBeInTheDocument();
    expect(api.getRegistrationOptions).toHaveBeenCalledTimes(1);
    expect(api.verifyRegistration).toHaveBeenCalledTimes(1);
  });

  it('back from the sign-in, options the server still refuses show the normal error', async () => {
    api.getRegistrationOptions.mockRejectedValue(new ApiError('down', 500));
    sessionStorage.setItem(
      PENDING_KEY,
      JSON.stringify({ feature: 'passkeys', key: 'passkey', sub: '00u1alice', savedAt: Date.now() }),
    );
    renderSection();
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    expect(screen.queryByRole('dialog', { name: 'Create your passkey' })).not.toBeInTheDocument();
  });

  it.each([
    ["another feature's action", { feature: 'factors', key: 'googleAuth', savedAt: Date.now() }],
    [
      'an action older than 10 minutes',
      { feature: 'passkeys', key: 'passkey', savedAt: Date.now() - 11 * 60_000 },
    ],
  ])('resumes nothing for %s', async (_case, record) => {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ sub: '00u1alice', ...record }));
    renderSection();
    await addButton();
    // The list is read; give a resume every chance to start.
    await waitFor(() => expect(api.getPasskeys).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(api.getRegistrationOptions).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('Passkeys: rename', () => {
  it('checks the name (required, at most 64), then saves it', async () => {
    api.renamePasskey.mockResolvedValue({ ...LAPTOP, name: 'Work laptop' });
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Rename MacBook Pro' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename passkey' });
    const field = within(dialog).getByLabelText('Name');
    await userEvent.clear(field);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Enter a name');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveFocus();
    await userEvent.click(field);
    await userEvent.paste('x'.repeat(65));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('The name must be at most 64 characters');
    expect(api.renamePasskey).not.toHaveBeenCalled();

    await userEvent.clear(field);
    await userEvent.type(field, 'Work laptop');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('button', { name: 'Rename Work laptop' })).toHaveFocus();
    expect(api.renamePasskey).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'pk1', 'Work laptop', {
      signal: expect.any(AbortSignal),
    });
  });

  it('Cancel keeps the name; a name the server refuses shows under the field', async () => {
    api.renamePasskey.mockRejectedValue(new ApiError('Enter a name', 400, 'invalid_request'));
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Rename MacBook Pro' }));
    let dialog = await screen.findByRole('dialog', { name: 'Rename passkey' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByRole('button', { name: 'Rename MacBook Pro' })).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Rename MacBook Pro' }));
    dialog = await screen.findByRole('dialog', { name: 'Rename passkey' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Enter a name');
  });
});

describe('Passkeys: remove', () => {
  it('asks first: Cancel keeps it, Confirm removes it', async () => {
    api.removePasskey.mockResolvedValue({ ...LIST, passkeys: [] });
    const { onCountChange } = renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Remove MacBook Pro' }));
    let dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    expect(dialog).toHaveTextContent('You will no longer be able to sign in or verify with "MacBook Pro".');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.removePasskey).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Remove MacBook Pro' }));
    dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('You have no passkeys yet.')).toBeInTheDocument();
    expect(await screen.findByText('The passkey was removed.')).toBeInTheDocument();
    expect(api.removePasskey).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'pk1', {
      signal: expect.any(AbortSignal),
    });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add a passkey' })).toHaveFocus());
    expect(onCountChange).toHaveBeenLastCalledWith(0);
  });

  it("the only 2-step method: the server's 409 last_factor text, and the passkey stays", async () => {
    api.removePasskey.mockRejectedValue(
      new ApiError('You cannot remove your only 2-step verification method.', 409, 'last_factor'),
    );
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Remove MacBook Pro' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'You cannot remove your only 2-step verification method.',
    );
    expect(screen.getByRole('button', { name: 'Remove MacBook Pro' })).toBeInTheDocument();
  });

  it('a 403 step_up_required hands over to the step-up screens; back from them, it is removed without asking', async () => {
    api.removePasskey.mockRejectedValueOnce(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    const { onStepUpRequired } = renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Remove MacBook Pro' }));
    await userEvent.click(
      within(await screen.findByRole('dialog', { name: 'Remove this passkey?' })).getByRole('button', {
        name: 'Confirm',
      }),
    );
    await waitFor(() => expect(onStepUpRequired).toHaveBeenCalledWith({ type: 'REMOVE', id: 'pk1' }));
  });

  it('back from step-up: removes without a second confirmation', async () => {
    api.removePasskey.mockResolvedValue({ ...LIST, passkeys: [] });
    renderSection(LIST, { resume: { type: 'REMOVE', id: 'pk1' } });
    expect(await screen.findByText('You have no passkeys yet.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Remove this passkey?' })).not.toBeInTheDocument();
    expect(api.removePasskey).toHaveBeenCalledTimes(1);
  });
});
