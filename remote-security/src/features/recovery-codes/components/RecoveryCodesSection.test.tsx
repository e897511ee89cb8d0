import { useState } from 'react';
import { screen, waitFor, within } from '@testing-library/react';
import { ApiError, type RecoveryCodesStatus } from 'shared-auth';
import { renderSignedIn, userEvent } from 'mount-runtime/testing';
import * as recoveryApi from '../api/recoveryCodesApi.js';
import { RecoveryCodesSection, type RecoveryCodesSectionProps } from './RecoveryCodesSection.js';

jest.mock('../api/recoveryCodesApi.js');
const api = jest.mocked(recoveryApi);

const DATE = '2026-03-07T12:00:00.000Z';
const CODES = [
  '0A1B2-C3D4E',
  '5F6G7-H8J9K',
  'MNPQR-STVWX',
  'YZ012-34567',
  '89ABC-DEFGH',
  'JKMNP-QRSTV',
  'WXYZ0-12345',
  '6789A-BCDEF',
  'GHJKM-NPQRS',
  'TVWXY-Z0123',
];
const NONE: RecoveryCodesStatus = { available: true, left: 0, total: 0, generatedAt: null };
const SOME: RecoveryCodesStatus = { available: true, left: 7, total: 10, generatedAt: DATE };

function renderSection(props: Partial<RecoveryCodesSectionProps> = {}) {
  const all: RecoveryCodesSectionProps = {
    activeCount: 1,
    onStepUpRequired: jest.fn(),
    generateAfterStepUp: false,
    onGenerateAfterStepUpStarted: jest.fn(),
    ...props,
  };
  renderSignedIn(<RecoveryCodesSection {...all} />);
  return all;
}

const section = () => screen.findByRole('region', { name: 'Recovery codes' });
const savedBox = () => screen.getByRole('checkbox', { name: 'I have saved my recovery codes' });
const saveDialog = () => screen.findByRole('dialog', { name: 'Save your recovery codes' });

/** Opens the dialog with a fresh set: no set yet, 'Generate recovery codes'. */
async function generateFirstSet() {
  api.getRecoveryCodesStatus.mockResolvedValue(NONE);
  api.generateRecoveryCodes.mockResolvedValue({ codes: CODES, generatedAt: DATE });
  renderSection();
  await userEvent.click(await screen.findByRole('button', { name: 'Generate recovery codes' }));
  return saveDialog();
}

beforeEach(() => {
  jest.resetAllMocks();
});

describe('Recovery codes section', () => {
  it('says what the codes are for, and offers to make a set once a 2-step method is on', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    renderSection();
    const region = await section();
    expect(
      within(region).getByText(
        "If you lose your phone or can't get to your email, a recovery code lets you sign in. Each code works once.",
      ),
    ).toBeInTheDocument();
    expect(await within(region).findByRole('button', { name: 'Generate recovery codes' })).toBeEnabled();
    expect(within(region).queryByText('Turn on a 2-step method first')).not.toBeInTheDocument();
    expect(api.getRecoveryCodesStatus).toHaveBeenCalledWith(expect.anything(), '00u1alice', {
      signal: expect.any(AbortSignal),
    });
  });

  it('without a 2-step method: says to turn one on first, and the button is disabled', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    renderSection({ activeCount: 0 });
    const button = await screen.findByRole('button', { name: 'Generate recovery codes' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription('Turn on a 2-step method first');
  });

  it('a generate refused for want of a 2-step method shows the same state, not an error', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    api.generateRecoveryCodes.mockRejectedValue(
      new ApiError('Turn on a 2-step method first.', 409, 'no_active_factor'),
    );
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Generate recovery codes' }));
    expect(await screen.findByText('Turn on a 2-step method first')).toBeInTheDocument();
    // antd drops the button's loading state on the next render.
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Generate recovery codes' })).toBeDisabled(),
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('where codes are not available (Okta mode): a true text and no button', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue({ ...NONE, available: false });
    renderSection();
    expect(
      await screen.findByText(
        "Recovery codes are not available with your organization's sign-in. Ask your administrator how to get back in if you lose your phone.",
      ),
    ).toBeInTheDocument();
    expect(within(await section()).queryByRole('button')).not.toBeInTheDocument();
  });

  it("with a set: '{n} of 10 codes left · generated {date}' and 'Generate new codes', no warning above 3", async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(SOME);
    renderSection();
    expect(await screen.findByText('7 of 10 codes left · generated Mar 7, 2026')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Generate new codes' })).toBeEnabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('at 3 or fewer left: a warning on the page', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue({ ...SOME, left: 3 });
    renderSection();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Only 3 recovery codes left. Generate new ones so you don't get locked out.",
    );
  });

  it("'Generate new codes' asks first: Cancel keeps the old set, Confirm makes a new one", async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(SOME);
    api.generateRecoveryCodes.mockResolvedValue({ codes: CODES, generatedAt: DATE });
    renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Generate new codes' }));
    const confirm = await screen.findByRole('dialog', { name: 'Generate new codes?' });
    expect(within(confirm).getByText('Your old codes will stop working.')).toBeInTheDocument();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Generate new codes?' })).not.toBeInTheDocument(),
    );
    expect(api.generateRecoveryCodes).not.toHaveBeenCalled();

    await userEvent.click(screen.getByRole('button', { name: 'Generate new codes' }));
    await userEvent.click(
      within(await screen.findByRole('dialog', { name: 'Generate new codes?' })).getByRole('button', {
        name: 'Confirm',
      }),
    );
    expect(await saveDialog()).toBeInTheDocument();
    expect(api.generateRecoveryCodes).toHaveBeenCalledTimes(1);
  });

  it('a failed status read shows the error view, and Try again reads it again', async () => {
    api.getRecoveryCodesStatus.mockRejectedValueOnce(new ApiError('down', 500)).mockResolvedValueOnce(NONE);
    renderSection();
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Generate recovery codes' })).toBeEnabled();
  });

  /** The section under a page whose count of 2-step methods goes from `from` to `to` on a button press. */
  function renderCountChange(from: number, to: number) {
    function Page() {
      const [count, setCount] = useState(from);
      return (
        <>
          <button onClick={() => setCount(to)}>Change the methods</button>
          <RecoveryCodesSection
            activeCount={count}
            onStepUpRequired={jest.fn()}
            generateAfterStepUp={false}
            onGenerateAfterStepUpStarted={jest.fn()}
          />
        </>
      );
    }
    renderSignedIn(<Page />);
  }

  it('reads the status again when the last 2-step method goes (it takes the codes)', async () => {
    api.getRecoveryCodesStatus.mockResolvedValueOnce(SOME).mockResolvedValueOnce(NONE);
    renderCountChange(1, 0);
    expect(await screen.findByText('7 of 10 codes left · generated Mar 7, 2026')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Change the methods' }));
    expect(await screen.findByText('Turn on a 2-step method first')).toBeInTheDocument();
    expect(screen.queryByText('7 of 10 codes left · generated Mar 7, 2026')).not.toBeInTheDocument();
    expect(api.getRecoveryCodesStatus).toHaveBeenCalledTimes(2);
  });

  it('does not read the status again when a method is turned on (its token renewal would race the read)', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    renderCountChange(0, 1);
    expect(await screen.findByText('Turn on a 2-step method first')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Change the methods' }));
    expect(await screen.findByRole('button', { name: 'Generate recovery codes' })).toBeEnabled();
    expect(api.getRecoveryCodesStatus).toHaveBeenCalledTimes(1);
  });
});

describe('Recovery codes: step-up', () => {
  it('a 403 step_up_required hands over to the step-up screens, without an error', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    api.generateRecoveryCodes.mockRejectedValue(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    const { onStepUpRequired } = renderSection();
    await userEvent.click(await screen.findByRole('button', { name: 'Generate recovery codes' }));
    await waitFor(() => expect(onStepUpRequired).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('back from the step-up screens: generates at once, without asking again', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(SOME);
    api.generateRecoveryCodes.mockResolvedValue({ codes: CODES, generatedAt: DATE });
    const { onGenerateAfterStepUpStarted } = renderSection({ generateAfterStepUp: true });
    expect(await saveDialog()).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Generate new codes?' })).not.toBeInTheDocument();
    expect(onGenerateAfterStepUpStarted).toHaveBeenCalled();
    expect(api.generateRecoveryCodes).toHaveBeenCalledTimes(1);
  });

  it('a second step_up_required right after the step-up is an error, not a loop', async () => {
    api.getRecoveryCodesStatus.mockResolvedValue(NONE);
    api.generateRecoveryCodes.mockRejectedValue(
      new ApiError('Step-up verification required', 403, 'step_up_required'),
    );
    const { onStepUpRequired } = renderSection({ generateAfterStepUp: true });
    expect(await screen.findByRole('alert')).toHaveTextContent('An Unexpected Error happened...');
    expect(onStepUpRequired).not.toHaveBeenCalled();
  });
});

describe('Save your recovery codes', () => {
  it('shows the 10 codes in monospace; Done stays disabled, and Escape does not close, until ticked', async () => {
    const dialog = await generateFirstSet();
    const list = within(dialog).getByRole('list', { name: 'Your recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(CODES);
    expect(list.style.fontFamily).toContain('monospace');
    const done = within(dialog).getByRole('button', { name: 'Done' });
    expect(done).toBeDisabled();
    expect(within(dialog).queryByRole('button', { name: /close/i })).not.toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Save your recovery codes' })).toBeInTheDocument();

    await userEvent.click(savedBox());
    expect(done).toBeEnabled();
    await userEvent.click(savedBox());
    expect(done).toBeDisabled();
  });

  it('Done once ticked: the dialog goes, the codes are never shown again, the section shows 10 of 10', async () => {
    const dialog = await generateFirstSet();
    await userEvent.click(savedBox());
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Save your recovery codes' })).not.toBeInTheDocument(),
    );
    expect(screen.queryByText(CODES[0]!)).not.toBeInTheDocument();
    expect(await screen.findByText('10 of 10 codes left · generated Mar 7, 2026')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Generate new codes' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Recovery codes' })).toHaveFocus();
  });

  it('Copy puts the codes on the clipboard and says so', async () => {
    const writeText = jest.fn().mockResolvedValue(undefined);
    const original = Object.getOwnPropertyDescriptor(navigator, 'clipboard');
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      const dialog = await generateFirstSet();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy' }));
      expect(writeText).toHaveBeenCalledWith(CODES.join('\n'));
      expect(await within(dialog).findByRole('status')).toHaveTextContent('Codes copied.');
    } finally {
      if (original) Object.defineProperty(navigator, 'clipboard', original);
    }
  });

  it('Copy refused by the browser says to download or print instead', async () => {
    const writeText = jest.fn().mockRejectedValue(new Error('denied'));
    const original = Object.getOwnPropertyDescriptor(navigator, 'clipboard');
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    try {
      const dialog = await generateFirstSet();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy' }));
      expect(await within(dialog).findByRole('status')).toHaveTextContent(
        "Couldn't copy the codes. Download or print them instead.",
      );
    } finally {
      if (original) Object.defineProperty(navigator, 'clipboard', original);
    }
  });

  it("Download saves recovery-codes.txt with the account's email, the date and the codes", async () => {
    let blob: Blob | undefined;
    const createObjectURL = jest.fn((value: Blob) => {
      blob = value;
      return 'blob:codes';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: jest.fn() });
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      expect(this.download).toBe('recovery-codes.txt');
      expect(this.href).toBe('blob:codes');
    });
    const dialog = await generateFirstSet();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Download' }));
    expect(click).toHaveBeenCalledTimes(1);
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(blob!);
    });
    expect(text).toContain('alice@example.com');
    expect(text).toContain('Mar 7, 2026');
    for (const code of CODES) expect(text).toContain(code);
  });

  it('Print prints the page, whose print stylesheet shows only the codes', async () => {
    const print = jest.spyOn(window, 'print').mockImplementation(() => undefined);
    const dialog = await generateFirstSet();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledTimes(1);
    const css = [...document.querySelectorAll('style')].map((style) => style.textContent).join('');
    expect(css).toContain('@media print');
    const sheet = within(dialog)
      .getByRole('list', { name: 'Your recovery codes' })
      .closest('.recovery-codes-print');
    expect(sheet).not.toBeNull();
    // Whose codes and when, on the sheet (shown in print only).
    expect(sheet).toHaveTextContent('Recovery codes for alice@example.com');
  });
});
