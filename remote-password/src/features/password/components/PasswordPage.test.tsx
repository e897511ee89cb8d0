import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type PortalAuth } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import {
  getChallenge,
  getPasskeyOptions,
  sendEmailChallenge,
  verifyPasskey,
  verifyRecoveryCode,
  verifyStepUp,
} from 'shared-stepup/api';
import { changePassword } from '../api/changePassword.js';
import { PasswordPage } from './PasswordPage.js';

jest.mock('../api/changePassword.js');
jest.mock('shared-stepup/api');
const changePasswordMock = jest.mocked(changePassword);
const getChallengeMock = jest.mocked(getChallenge);
const verifyStepUpMock = jest.mocked(verifyStepUp);
const verifyRecoveryCodeMock = jest.mocked(verifyRecoveryCode);
const passkeyOptionsMock = jest.mocked(getPasskeyOptions);
const verifyPasskeyMock = jest.mocked(verifyPasskey);
const sendEmailChallengeMock = jest.mocked(sendEmailChallenge);

const CURRENT = 'Wonderland-42';
const NEW = 'Tumbling-Down-7';

function renderPage(overrides: Partial<PortalAuth> = {}) {
  return renderSignedIn(<PasswordPage />, overrides);
}

const field = (label: 'Current Password' | 'New Password' | 'Confirm Password') =>
  screen.getByLabelText(label);
const saveButton = () => screen.getByRole('button', { name: 'Save' });

/** The checklist's items as "rule, met|not met", the way a screen reader reads them. */
function checklist(): string[] {
  const list = screen.getByRole('list', { name: 'Password rules' });
  return within(list)
    .getAllByRole('listitem')
    .map((item) => item.textContent ?? '');
}

async function openChange() {
  renderPage();
  await userEvent.click(screen.getByRole('button', { name: 'Change Password' }));
  // The change form is its own chunk: wait for it like a user would.
  await screen.findByLabelText('Current Password');
}

/**
 * Puts a whole value in a field at once (one input event, as a paste or a password manager does). antd is slow
 * under jsdom, so typing character by character is kept for the tests about what happens while typing.
 */
async function enter(label: Parameters<typeof field>[0], value: string) {
  await userEvent.click(field(label));
  await userEvent.paste(value);
}

async function fillValidForm() {
  await enter('Current Password', CURRENT);
  await enter('New Password', NEW);
  await enter('Confirm Password', NEW);
}

describe('PasswordPage', () => {
  it('tells federated users the page is not for them, and offers no change', () => {
    renderPage({ isFederated: true });
    expect(screen.getByRole('heading', { level: 1, name: 'Password' })).toBeInTheDocument();
    expect(screen.getByText('Resource not available for federated users')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Change Password' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Current Password')).not.toBeInTheDocument();
  });

  it('shows the username, a masked password and Change Password in the Initial view', () => {
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Password' })).toBeInTheDocument();
    const table = screen.getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Username', 'Password']);
    expect(within(table).getByText('alice@example.com')).toBeInTheDocument();
    expect(within(table).getByText('••••••••')).toHaveAttribute('aria-hidden', 'true');
    expect(screen.getByRole('button', { name: 'Change Password' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });

  it('opens the Change view with labelled fields, autocomplete hints, Cancel and Save', async () => {
    await openChange();
    expect(screen.getByText(/You are changing your password for:/)).toHaveTextContent(
      'You are changing your password for: alice@example.com',
    );
    expect(field('Current Password')).toHaveAttribute('autocomplete', 'current-password');
    expect(field('Current Password')).toHaveAttribute('type', 'password');
    expect(field('Current Password')).toHaveFocus();
    expect(field('New Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(field('Confirm Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    expect(saveButton()).toBeDisabled();
  });

  it('Cancel returns to the Initial view, forgets what was typed and gives focus back', async () => {
    await openChange();
    await enter('Current Password', CURRENT);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Change Password' })).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByLabelText('Current Password')).toHaveValue('');
    expect(changePasswordMock).not.toHaveBeenCalled();
  });

  describe('the live rules checklist', () => {
    it('lists every rule under New Password, none met before typing, and describes the field', async () => {
      await openChange();
      expect(checklist()).toEqual([
        'At least 8 characters, not met',
        'At least 1 number, not met',
        'At least 1 lowercase letter, not met',
        'At least 1 uppercase letter, not met',
        'Does not contains part of email, not met',
        'Must not match current password field, not met',
      ]);
      // jsdom's accessible-name code puts a space before the hidden ', not met' (it is absolutely positioned).
      const description = screen.getByLabelText('New Password').getAttribute('aria-describedby') ?? '';
      expect(document.getElementById(description)).toBeInTheDocument();
      expect(field('New Password')).toHaveAccessibleDescription(
        new RegExp(
          [
            'Password rules',
            'At least 8 characters ?, not met',
            'At least 1 number ?, not met',
            'At least 1 lowercase letter ?, not met',
            'At least 1 uppercase letter ?, not met',
            'Does not contains part of email ?, not met',
            'Must not match current password field ?, not met',
          ].join(' ') + '$',
        ),
      );
    });

    it('marks each rule met or not as the user types', async () => {
      await openChange();
      await enter('Current Password', CURRENT);
      await userEvent.type(field('New Password'), 'tumbling');
      expect(checklist()).toEqual([
        'At least 8 characters, met',
        'At least 1 number, not met',
        'At least 1 lowercase letter, met',
        'At least 1 uppercase letter, not met',
        'Does not contains part of email, met',
        'Must not match current password field, met',
      ]);
      await userEvent.type(field('New Password'), '7ALICE');
      expect(checklist()).toEqual([
        'At least 8 characters, met',
        'At least 1 number, met',
        'At least 1 lowercase letter, met',
        'At least 1 uppercase letter, met',
        'Does not contains part of email, not met',
        'Must not match current password field, met',
      ]);
    });

    it('flags a new password equal to the current one', async () => {
      await openChange();
      await enter('Current Password', CURRENT);
      await enter('New Password', CURRENT);
      expect(checklist()).toContain('Must not match current password field, not met');
      await enter('Confirm Password', CURRENT);
      expect(saveButton()).toBeDisabled();
    });

    it('announces the changes politely once the user pauses', async () => {
      await openChange();
      const status = screen.getByRole('status');
      expect(status).toHaveAttribute('aria-live', 'polite');
      expect(status).toHaveTextContent('');
      await userEvent.type(field('New Password'), 'Tumbling7');
      await waitFor(() =>
        expect(status).toHaveTextContent(
          'At least 8 characters: met. At least 1 number: met. At least 1 lowercase letter: met. ' +
            'At least 1 uppercase letter: met. Does not contains part of email: met. ' +
            'Must not match current password field: met. 6 of 6 password rules met.',
        ),
      );
      await userEvent.type(field('New Password'), 'ali');
      await waitFor(() =>
        expect(status).toHaveTextContent(
          'Does not contains part of email: not met. 5 of 6 password rules met.',
        ),
      );
    });
  });

  describe('inline messages and Save gating', () => {
    it('says the current password is required once the user moves on without it', async () => {
      await openChange();
      expect(screen.queryByText('Current password is a required field')).not.toBeInTheDocument();
      await userEvent.type(field('New Password'), NEW);
      expect(screen.getByText('Current password is a required field')).toBeInTheDocument();
      expect(field('Current Password')).toHaveAttribute('aria-invalid', 'true');
      expect(field('Current Password')).toHaveAccessibleDescription('Current password is a required field');
      await enter('Current Password', 'x');
      expect(screen.queryByText('Current password is a required field')).not.toBeInTheDocument();
    });

    it('says the confirmation must match, and clears it when it does', async () => {
      await openChange();
      await enter('New Password', NEW);
      await userEvent.type(field('Confirm Password'), 'Tumbling');
      // Still typing: no complaint yet.
      expect(screen.queryByText('Must match new Password')).not.toBeInTheDocument();
      await userEvent.type(field('Confirm Password'), '-Dawn-7');
      expect(screen.getByText('Must match new Password')).toBeInTheDocument();
      expect(field('Confirm Password')).toHaveAccessibleDescription('Must match new Password');
      await userEvent.clear(field('Confirm Password'));
      await enter('Confirm Password', NEW);
      expect(screen.queryByText('Must match new Password')).not.toBeInTheDocument();
    });

    it('enables Save only when all three are filled, every rule passes and the confirmation matches', async () => {
      await openChange();
      await enter('Current Password', CURRENT);
      expect(saveButton()).toBeDisabled();
      await enter('New Password', 'tumbling-down-7');
      await enter('Confirm Password', 'tumbling-down-7');
      expect(saveButton()).toBeDisabled(); // no uppercase letter
      await userEvent.clear(field('New Password'));
      await enter('New Password', NEW);
      expect(saveButton()).toBeDisabled(); // the confirmation differs now
      await userEvent.clear(field('Confirm Password'));
      await enter('Confirm Password', NEW);
      expect(saveButton()).toBeEnabled();
      await userEvent.clear(field('Current Password'));
      expect(saveButton()).toBeDisabled();
      // Enter in a field does not get around the gate either.
      await userEvent.type(field('Confirm Password'), '{Enter}');
      expect(changePasswordMock).not.toHaveBeenCalled();
    });
  });

  describe('saving', () => {
    it('shows the Saving dialog, then the Initial view and the notification', async () => {
      let finish!: () => void;
      changePasswordMock.mockReturnValue(new Promise<void>((resolve) => (finish = resolve)));
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await screen.findByRole('dialog', { name: 'Saving' });
      expect(dialog).toHaveTextContent('Please wait a moment as we save your changes');
      expect(changePasswordMock).toHaveBeenCalledTimes(1);
      expect(changePasswordMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
        OldPassword: CURRENT,
        NewPassword: NEW,
      });

      finish();
      expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
      await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Saving' })).not.toBeInTheDocument());
      expect(screen.getByRole('button', { name: 'Change Password' })).toBeInTheDocument();
      expect(screen.queryByLabelText('Current Password')).not.toBeInTheDocument();
    });

    it('submits with Enter once Save is enabled', async () => {
      changePasswordMock.mockResolvedValue();
      await openChange();
      await fillValidForm();
      await userEvent.type(field('Confirm Password'), '{Enter}');
      expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
      expect(changePasswordMock).toHaveBeenCalledTimes(1);
    });

    it("shows the Error view on the server's generic error", async () => {
      changePasswordMock.mockRejectedValue(
        new ApiError('An error happened during password change', 500, 'internal_error'),
      );
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
      expect(screen.queryByLabelText('Current Password')).not.toBeInTheDocument();
      expect(screen.queryByText('Changes could not be saved')).not.toBeInTheDocument();
      expect(screen.queryByText('Your changes are saved.')).not.toBeInTheDocument();
    });

    it('Try again leaves the Error view for the Initial view, with the focus on Change Password', async () => {
      changePasswordMock.mockRejectedValue(
        new ApiError('An error happened during password change', 500, 'internal_error'),
      );
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const retry = await screen.findByRole('button', { name: 'Try again' });
      expect(retry).toHaveFocus();
      await userEvent.click(retry);
      expect(screen.queryByText('An Unexpected Error happened...')).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Change Password' })).toHaveFocus();
    });

    it("shows any other server error in the 'Changes could not be saved' dialog, then keeps the form", async () => {
      changePasswordMock.mockRejectedValue(new ApiError('The current password is not correct.', 400));
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await screen.findByRole('dialog', { name: 'Changes could not be saved' });
      expect(dialog).toHaveTextContent(
        'The current password is not correct.Please make the necessary changes and try again',
      );
      expect(screen.queryByRole('dialog', { name: 'Saving' })).not.toBeInTheDocument();
      expect(screen.queryByText('Your changes are saved.')).not.toBeInTheDocument();

      await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
      await waitFor(() =>
        expect(screen.queryByRole('dialog', { name: 'Changes could not be saved' })).not.toBeInTheDocument(),
      );
      expect(field('Current Password')).toHaveValue(CURRENT);
      expect(field('New Password')).toHaveValue(NEW);
      expect(saveButton()).toBeEnabled();
    });

    it('shows the throttle text the same way', async () => {
      changePasswordMock.mockRejectedValue(
        new ApiError('Too many wrong current passwords. Try again in 15 minutes.', 429, 'rate_limited'),
      );
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());
      expect(await screen.findByRole('dialog', { name: 'Changes could not be saved' })).toHaveTextContent(
        'Too many wrong current passwords. Try again in 15 minutes.',
      );
    });
  });

  describe('step-up verification before the save (a user with an active 2-step factor)', () => {
    const STEP_UP_TEXT =
      'Step-up verification required: verify with one of your 2-step factors first (a verification lasts 5 minutes).';
    const stepUpRequired = () => new ApiError(STEP_UP_TEXT, 403, 'step_up_required');
    const stepUpDialog = () => screen.findByRole('dialog', { name: '2-step verification' });

    beforeEach(() => localStorage.clear());

    it('shows the step-up screens over the form, verifies, and saves the same change without retyping', async () => {
      changePasswordMock.mockRejectedValueOnce(stepUpRequired()).mockResolvedValueOnce();
      getChallengeMock.mockResolvedValue({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
      verifyStepUpMock.mockResolvedValue();
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await stepUpDialog();
      expect(within(dialog).getByRole('heading', { name: 'Verify to continue' })).toBeInTheDocument();
      expect(dialog).toHaveTextContent('You will access security information after verification.');
      expect(screen.queryByRole('dialog', { name: 'Changes could not be saved' })).not.toBeInTheDocument();
      expect(screen.queryByRole('dialog', { name: 'Saving' })).not.toBeInTheDocument();
      expect(getChallengeMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
        signal: expect.any(AbortSignal),
      });

      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
      expect(
        await within(dialog).findByRole('heading', {
          name: 'Please check your code on Google Authenticator',
        }),
      ).toBeInTheDocument();
      await userEvent.type(within(dialog).getByLabelText('Enter authentication code'), '123456');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));

      expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
      expect(verifyStepUpMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'google-auth', '123456', {
        signal: expect.any(AbortSignal),
      });
      expect(changePasswordMock).toHaveBeenCalledTimes(2);
      expect(changePasswordMock).toHaveBeenNthCalledWith(2, expect.anything(), '00u1alice', {
        OldPassword: CURRENT,
        NewPassword: NEW,
      });
      await waitFor(() =>
        expect(screen.queryByRole('dialog', { name: '2-step verification' })).not.toBeInTheDocument(),
      );
      expect(screen.getByRole('button', { name: 'Change Password' })).toBeInTheDocument();
    });

    describe("the holder's default method (issue 22)", () => {
      const bothFactors = { googleAuth: {}, email: { maskedEmail: 'a....e@example.com' } };

      it('opens with the default method first, verifies with it, and saves the same change', async () => {
        changePasswordMock.mockRejectedValueOnce(stepUpRequired()).mockResolvedValueOnce();
        getChallengeMock.mockResolvedValue({
          challengeUser: true,
          activeFactorsData: bothFactors,
          preferredMethod: 'email',
        });
        sendEmailChallengeMock.mockResolvedValue();
        verifyStepUpMock.mockResolvedValue();
        await openChange();
        await fillValidForm();
        await userEvent.click(saveButton());

        const dialog = await stepUpDialog();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
        // Straight to the email screen: no selection, and Google Authenticator only behind "Use another method".
        expect(await within(dialog).findByRole('heading', { name: 'Verify with Email' })).toBeInTheDocument();
        expect(
          within(dialog).queryByRole('heading', { name: 'Select a verification method to continue' }),
        ).not.toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: 'Use another method' })).toBeInTheDocument();

        await userEvent.click(within(dialog).getByRole('button', { name: 'Send authentication code' }));
        await userEvent.type(await within(dialog).findByLabelText('Enter authentication code'), '123456');
        await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));

        expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
        expect(verifyStepUpMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'email', '123456', {
          signal: expect.any(AbortSignal),
        });
        expect(changePasswordMock).toHaveBeenCalledTimes(2);
      });

      it('"Use another method" still offers every method, the default first', async () => {
        changePasswordMock.mockRejectedValue(stepUpRequired());
        getChallengeMock.mockResolvedValue({
          challengeUser: true,
          activeFactorsData: bothFactors,
          preferredMethod: 'googleAuth',
        });
        await openChange();
        await fillValidForm();
        await userEvent.click(saveButton());

        const dialog = await stepUpDialog();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
        expect(
          await within(dialog).findByRole('heading', {
            name: 'Please check your code on Google Authenticator',
          }),
        ).toBeInTheDocument();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Use another method' }));
        const methods = (await within(dialog).findAllByRole('button', { name: /^Verify with/ })).map(
          (button) => button.textContent,
        );
        expect(methods).toEqual(['Verify with Google Authenticator', 'Verify with Email']);
      });

      it('without a default, Verify shows the selection in the fixed order', async () => {
        changePasswordMock.mockRejectedValue(stepUpRequired());
        getChallengeMock.mockResolvedValue({ challengeUser: true, activeFactorsData: bothFactors });
        await openChange();
        await fillValidForm();
        await userEvent.click(saveButton());

        const dialog = await stepUpDialog();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
        expect(
          await within(dialog).findByRole('heading', { name: 'Select a verification method to continue' }),
        ).toBeInTheDocument();
        expect(within(dialog).queryByRole('button', { name: 'Use another method' })).not.toBeInTheDocument();
      });
    });

    it('offers a recovery code when the holder has unused ones, and saves once it is accepted', async () => {
      changePasswordMock.mockRejectedValueOnce(stepUpRequired()).mockResolvedValueOnce();
      getChallengeMock.mockResolvedValue({
        challengeUser: true,
        activeFactorsData: { googleAuth: {} },
        recoveryCodes: { left: 7 },
      });
      verifyRecoveryCodeMock.mockResolvedValue();
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await stepUpDialog();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
      await userEvent.click(await within(dialog).findByRole('button', { name: 'Use a recovery code' }));
      await userEvent.type(within(dialog).getByLabelText('Recovery code'), 'abcde fghjk');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));

      expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
      expect(verifyRecoveryCodeMock).toHaveBeenCalledWith(expect.anything(), '00u1alice', 'ABCDE-FGHJK', {
        signal: expect.any(AbortSignal),
      });
      expect(changePasswordMock).toHaveBeenCalledTimes(2);
    });

    it("offers the holder's passkey (the browser's own check, its library loaded then), and saves once it is accepted", async () => {
      changePasswordMock.mockRejectedValueOnce(stepUpRequired()).mockResolvedValueOnce();
      getChallengeMock.mockResolvedValue({
        challengeUser: true,
        activeFactorsData: { passkey: { count: 1 } },
      });
      passkeyOptionsMock.mockResolvedValue({ challenge: 'c2lnbi1tZQ', allowCredentials: [] });
      verifyPasskeyMock.mockResolvedValue();
      // A browser with WebAuthn, whose authenticator answers at once (jsdom has neither).
      const bytes = (text: string) => new TextEncoder().encode(text).buffer;
      const get = jest.fn().mockResolvedValue({
        id: 'Y3JlZA',
        rawId: bytes('cred'),
        type: 'public-key',
        response: {
          authenticatorData: bytes('auth'),
          clientDataJSON: bytes('{}'),
          signature: bytes('sig'),
          userHandle: null,
        },
        getClientExtensionResults: () => ({}),
        authenticatorAttachment: 'platform',
      });
      Object.defineProperty(window, 'PublicKeyCredential', {
        value: function PublicKeyCredential() {},
        configurable: true,
      });
      Object.defineProperty(navigator, 'credentials', { value: { get }, configurable: true });
      try {
        await openChange();
        await fillValidForm();
        await userEvent.click(saveButton());

        const dialog = await stepUpDialog();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
        // The passkey alone: straight to its screen.
        expect(await within(dialog).findByRole('heading', { name: 'Use your passkey' })).toBeInTheDocument();
        await userEvent.click(within(dialog).getByRole('button', { name: 'Use passkey' }));

        expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
        expect(get).toHaveBeenCalledTimes(1);
        expect(verifyPasskeyMock).toHaveBeenCalledWith(
          expect.anything(),
          '00u1alice',
          expect.objectContaining({ id: 'Y3JlZA', type: 'public-key' }),
          { signal: expect.any(AbortSignal) },
        );
        expect(changePasswordMock).toHaveBeenCalledTimes(2);
      } finally {
        delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
        delete (navigator as { credentials?: unknown }).credentials;
      }
    });

    it('Close returns to the form with what was typed and the focus on Save, and saves nothing', async () => {
      changePasswordMock.mockRejectedValue(stepUpRequired());
      getChallengeMock.mockResolvedValue({
        challengeUser: true,
        activeFactorsData: { googleAuth: {}, email: { maskedEmail: 'a....e@example.com' } },
      });
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await stepUpDialog();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
      await waitFor(() =>
        expect(screen.queryByRole('dialog', { name: '2-step verification' })).not.toBeInTheDocument(),
      );
      expect(field('Current Password')).toHaveValue(CURRENT);
      expect(field('New Password')).toHaveValue(NEW);
      expect(field('Confirm Password')).toHaveValue(NEW);
      expect(saveButton()).toHaveFocus();
      expect(changePasswordMock).toHaveBeenCalledTimes(1);
      expect(screen.queryByText('Your changes are saved.')).not.toBeInTheDocument();

      // Saving again asks again.
      await userEvent.click(saveButton());
      expect(await stepUpDialog()).toBeInTheDocument();
      expect(changePasswordMock).toHaveBeenCalledTimes(2);
    });

    it("shows 'Error' in the dialog when the challenge cannot be loaded", async () => {
      changePasswordMock.mockRejectedValue(stepUpRequired());
      getChallengeMock.mockRejectedValue(new ApiError('The account service could not be reached', 0));
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await stepUpDialog();
      expect(await within(dialog).findByText('Error')).toBeInTheDocument();
      expect(changePasswordMock).toHaveBeenCalledTimes(1);
    });

    it("Try again on the dialog's 'Error' loads the challenge again", async () => {
      changePasswordMock.mockRejectedValue(stepUpRequired());
      getChallengeMock
        .mockRejectedValueOnce(new ApiError('The account service could not be reached', 0))
        .mockResolvedValueOnce({ challengeUser: true, activeFactorsData: { googleAuth: {} } });
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());

      const dialog = await stepUpDialog();
      await within(dialog).findByText('Error');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Try again' }));
      expect(
        await within(await stepUpDialog()).findByRole('heading', { name: 'Verify to continue' }),
      ).toBeInTheDocument();
      expect(getChallengeMock).toHaveBeenCalledTimes(2);
    });

    it('goes by the step_up_required code, not the text: the text alone is a refusal like any other', async () => {
      changePasswordMock.mockRejectedValueOnce(new ApiError(STEP_UP_TEXT, 403));
      await openChange();
      await fillValidForm();
      await userEvent.click(saveButton());
      expect(await screen.findByRole('dialog', { name: 'Changes could not be saved' })).toHaveTextContent(
        STEP_UP_TEXT,
      );
      expect(getChallengeMock).not.toHaveBeenCalled();
      expect(changePasswordMock).toHaveBeenCalledTimes(1);
    });
  });
});
