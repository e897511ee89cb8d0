import { render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { PortalThemeProvider } from 'shared-ui';
import { RemoteLoadFailed, versionRefusalOf } from './RemoteLoadFailed.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

// What @module-federation/runtime-core 2.9 throws for a strictVersion singleton the remote cannot have.
const REFUSED = new Error(
  '[ Federation Runtime ]: Version 1.0.0 from shell of shared singleton module shared-auth does not satisfy the requirement of remote_profile which needs ^2.0.0)',
);

function renderFailed(error?: unknown) {
  const onRetry = jest.fn();
  render(
    <PortalThemeProvider>
      <RemoteLoadFailed label="My Profile" onRetry={onRetry} error={error} />
    </PortalThemeProvider>,
  );
  return onRetry;
}

describe('RemoteLoadFailed', () => {
  it('says the remote could not be loaded, and offers Retry', async () => {
    const onRetry = renderFailed(new Error('[ Federation Runtime ]: RUNTIME-003 failed to get remoteEntry'));
    expect(
      screen.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' }),
    ).toBeInTheDocument();
    expect(screen.getByText(/The rest of the portal still works/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('says which version a refused remote needs and which one the portal provides', async () => {
    const onRetry = renderFailed(REFUSED);
    expect(
      screen.getByRole('heading', {
        level: 1,
        name: 'My Profile was built for a different version of the portal',
      }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        'It needs shared-auth ^2.0.0; this portal provides 1.0.0. The rest of the portal still works.',
      ),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('shows the general message when the reason is not known', () => {
    renderFailed();
    expect(
      screen.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' }),
    ).toBeInTheDocument();
  });
});

describe('versionRefusalOf', () => {
  it("reads the MF runtime's refusal of a singleton", () => {
    expect(versionRefusalOf(REFUSED)).toEqual({
      sharedPackage: 'shared-auth',
      required: '^2.0.0',
      provided: '1.0.0',
    });
  });

  it('is undefined for any other failure', () => {
    expect(versionRefusalOf(new Error('RUNTIME-003 failed to get remoteEntry'))).toBeUndefined();
    expect(versionRefusalOf('Version 1 of shared singleton module x')).toBeUndefined();
    expect(versionRefusalOf(undefined)).toBeUndefined();
  });
});
