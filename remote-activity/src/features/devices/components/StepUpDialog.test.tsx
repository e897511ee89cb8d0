/**
 * The Devices step-up dialog opens with the holder's default method (issue 22: the challenge's `preferredMethod`),
 * and keeps the fixed order without one. The whole sign-out flow under step-up is DevicesSection.test.tsx.
 */
import { screen, within } from '@testing-library/react';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import type { ChallengeResponse } from 'shared-auth';
import StepUpDialog from './StepUpDialog.js';
import { DEVICES_TEXTS } from '../model/texts.js';

jest.mock('shared-stepup/api');

const BOTH: ChallengeResponse['activeFactorsData'] = {
  googleAuth: {},
  email: { maskedEmail: 'a....e@example.com' },
};

function renderDialog(preferredMethod?: ChallengeResponse['preferredMethod']) {
  renderSignedIn(
    <StepUpDialog
      activeFactorsData={BOTH}
      preferredMethod={preferredMethod}
      onVerified={jest.fn()}
      onRetry={jest.fn()}
      onCancel={jest.fn()}
    />,
  );
  return screen.getByRole('dialog', { name: DEVICES_TEXTS.stepUpTitle });
}

beforeEach(() => localStorage.clear());

describe('StepUpDialog (Devices)', () => {
  it('opens with the holder\'s default method; the others stay behind "Use another method"', async () => {
    const dialog = renderDialog('email');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(await within(dialog).findByRole('heading', { name: 'Verify with Email' })).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('heading', { name: 'Select a verification method to continue' }),
    ).not.toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Use another method' }));
    const methods = (await within(dialog).findAllByRole('button', { name: /^Verify with/ })).map(
      (button) => button.textContent,
    );
    expect(methods).toEqual(['Verify with Email', 'Verify with Google Authenticator']);
  });

  it('without a default, Verify shows the selection in the fixed order', async () => {
    const dialog = renderDialog();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(
      await within(dialog).findByRole('heading', { name: 'Select a verification method to continue' }),
    ).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Use another method' })).not.toBeInTheDocument();
  });
});
