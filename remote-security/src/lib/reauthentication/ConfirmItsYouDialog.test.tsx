import { screen, waitFor, within } from '@testing-library/react';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import { ConfirmItsYouDialog, type ConfirmItsYouDialogProps } from './ConfirmItsYouDialog.js';

function renderDialog(props: Partial<ConfirmItsYouDialogProps> = {}) {
  const all: ConfirmItsYouDialogProps = {
    status: 'ASKING',
    error: null,
    onConfirm: jest.fn(),
    onSignInAgain: jest.fn(),
    onCancel: jest.fn(),
    afterClose: jest.fn(),
    ...props,
  };
  renderSignedIn(<ConfirmItsYouDialog {...all} />);
  return all;
}

const dialog = () => screen.findByRole('dialog', { name: "Confirm it's you" });

describe('ConfirmItsYouDialog', () => {
  it('the password view: Enter sends the password; Confirm waits for one; the error describes the field', async () => {
    const { onConfirm, onSignInAgain } = renderDialog({ error: 'The password is not correct.' });
    const view = await dialog();
    const field = within(view).getByLabelText('Password');
    expect(within(view).getByRole('button', { name: 'Confirm' })).toBeDisabled();
    expect(field).toHaveAccessibleDescription(
      'The password is not correct. For your security, enter your password to turn on 2-step verification.',
    );
    expect(within(view).queryByRole('button', { name: 'Sign in again' })).not.toBeInTheDocument();
    await userEvent.type(field, 'Wonderland-42{Enter}');
    expect(onConfirm).toHaveBeenCalledWith('Wonderland-42');
    expect(onSignInAgain).not.toHaveBeenCalled();
  });

  it('the sign-in view: no field; Enter on its focused button signs in again; the error describes it', async () => {
    const { onSignInAgain, onConfirm } = renderDialog({
      status: 'SIGNING_IN_AGAIN',
      error: 'The sign-in service could not be reached. Please try again.',
    });
    const view = await dialog();
    expect(within(view).queryByLabelText('Password')).not.toBeInTheDocument();
    const button = within(view).getByRole('button', { name: 'Sign in again' });
    expect(button).toHaveAccessibleDescription(
      'The sign-in service could not be reached. Please try again. For your security, you need to sign in again to turn on 2-step verification. You will come back to this page afterwards.',
    );
    await waitFor(() => expect(button).toHaveFocus());
    await userEvent.keyboard('{Enter}');
    expect(onSignInAgain).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('while the page leaves for the sign-in: Cancel is disabled and a second press sends nothing', async () => {
    const { onSignInAgain, onCancel } = renderDialog({ status: 'REDIRECTING' });
    const view = await dialog();
    expect(within(view).getByRole('button', { name: 'Cancel' })).toBeDisabled();
    await userEvent.click(within(view).getByRole('button', { name: /Sign in again/ }));
    expect(onSignInAgain).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('without a new sign-in from the host: how to do it by hand, and Cancel only', async () => {
    renderDialog({ status: 'SIGNING_IN_AGAIN', onSignInAgain: undefined });
    const view = await dialog();
    expect(view).toHaveTextContent(
      'For your security, you need to sign in again to turn on 2-step verification: sign out, sign in, and come back to this page.',
    );
    expect(within(view).getAllByRole('button', { name: /Cancel|Sign in again|Confirm/ })).toHaveLength(1);
  });
});
