import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type PortalAuth } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import { updateProfile } from '../api/updateProfile.js';
import { ProfilePage } from './ProfilePage.js';

jest.mock('../api/updateProfile.js');
const updateProfileMock = jest.mocked(updateProfile);

function renderPage(overrides: Partial<PortalAuth> = {}) {
  return renderSignedIn(<ProfilePage />, overrides);
}

const stored = {
  sub: '00u1alice',
  email: 'alice@example.com',
  firstName: 'Alice',
  lastName: 'Pleasance',
  country: 'GB',
};

describe('ProfilePage', () => {
  it('lists First Name, Last Name, Email and Country, in that order, read-only', () => {
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument();
    const labels = screen.getAllByRole('columnheader').map((cell) => cell.textContent);
    expect(labels).toEqual(['First Name', 'Last Name', 'Email', 'Country']);
    expect(screen.getByText('Liddell')).toBeInTheDocument();
    expect(screen.getByText('United Kingdom')).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });

  it('hides Edit My Profile from federated users', () => {
    renderPage({ isFederated: true });
    expect(screen.queryByRole('button', { name: 'Edit My Profile' })).not.toBeInTheDocument();
  });

  it('switches to an edit form with Cancel and Save, where the email cannot be changed', async () => {
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    expect(await screen.findByLabelText('First Name')).toHaveValue('Alice');
    expect(screen.getByLabelText('Email')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();
  });

  it('saves only the changed fields, shows the toast and the new values, and refreshes the claims', async () => {
    updateProfileMock.mockResolvedValue(stored);
    const auth = renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.clear(await screen.findByLabelText('Last Name'));
    await userEvent.type(screen.getByLabelText('Last Name'), 'Pleasance');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
    expect(updateProfileMock).toHaveBeenCalledTimes(1);
    expect(updateProfileMock).toHaveBeenCalledWith(
      expect.anything(),
      '00u1alice',
      { lastName: 'Pleasance' },
      { signal: expect.any(AbortSignal) },
    );
    expect(screen.getByText('Pleasance')).toBeInTheDocument();
    expect(auth.refreshUser).toHaveBeenCalled();
  });

  it('shows the Saving dialog while the save is under way', async () => {
    let finish!: (value: typeof stored) => void;
    updateProfileMock.mockReturnValue(new Promise((resolve) => (finish = resolve)));
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.type(await screen.findByLabelText('Last Name'), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    const dialog = await screen.findByRole('dialog', { name: 'Saving' });
    expect(dialog).toHaveTextContent('Please wait a moment while we save your changes');
    finish(stored);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Saving' })).not.toBeInTheDocument());
  });

  it('sends nothing when nothing changed, and returns to the read-only view', async () => {
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('button', { name: 'Edit My Profile' })).toBeInTheDocument();
    expect(updateProfileMock).not.toHaveBeenCalled();
  });

  it('Cancel discards the edits', async () => {
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.clear(await screen.findByLabelText('First Name'));
    await userEvent.type(screen.getByLabelText('First Name'), 'Mallory');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText('Alice')).toBeInTheDocument();
    expect(screen.queryByText('Mallory')).not.toBeInTheDocument();
    expect(updateProfileMock).not.toHaveBeenCalled();
  });

  it('moves the keyboard focus to First Name on Edit, and back to Edit My Profile after Cancel or a save', async () => {
    updateProfileMock.mockResolvedValue(stored);
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await waitFor(() => expect(screen.getByLabelText('First Name')).toHaveFocus());
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Edit My Profile' })).toHaveFocus();

    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.type(await screen.findByLabelText('Last Name'), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Edit My Profile' })).toHaveFocus());
  });

  it('takes any ok answer as saved, and shows what was sent when the answer does not repeat it', async () => {
    // Spec section 7: "An ok answer means saved", whatever the body says.
    updateProfileMock.mockResolvedValue({} as Awaited<ReturnType<typeof updateProfileMock>>);
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.clear(await screen.findByLabelText('Last Name'));
    await userEvent.type(screen.getByLabelText('Last Name'), 'Pleasance');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
    expect(screen.getByText('Pleasance')).toBeInTheDocument();
    expect(screen.getByText('Alice')).toBeInTheDocument();
  });

  it('on failure closes the dialog, shows no toast and applies nothing', async () => {
    updateProfileMock.mockRejectedValue(new ApiError('Last name must be at most 50 characters', 400));
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.type(await screen.findByLabelText('Last Name'), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Last name must be at most 50 characters')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Saving' })).not.toBeInTheDocument();
    expect(screen.queryByText('Your changes are saved.')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText('Liddell')).toBeInTheDocument();
  });

  it('chooses the country from the list, by name, with its flag', async () => {
    updateProfileMock.mockResolvedValue({ ...stored, lastName: 'Liddell', country: 'FR' });
    renderPage();
    await userEvent.click(screen.getByRole('button', { name: 'Edit My Profile' }));
    await userEvent.type(await screen.findByLabelText('Country'), 'Fran');
    const listbox = await screen.findByRole('listbox');
    expect(within(listbox).getByRole('option', { name: 'France' })).toBeInTheDocument();
    await userEvent.click(screen.getByTitle('France'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() =>
      expect(updateProfileMock).toHaveBeenCalledWith(
        expect.anything(),
        '00u1alice',
        { country: 'FR' },
        { signal: expect.any(AbortSignal) },
      ),
    );
    expect(await screen.findByText('France')).toBeInTheDocument();
  });
});
