import { render, screen, within } from '@testing-library/react';
import { PortalThemeProvider } from 'shared-ui';
import { AboutDialog } from './AboutDialog.js';

describe('AboutDialog', () => {
  it("shows the shell's build and each loaded remote's version and build", () => {
    render(
      <PortalThemeProvider>
        <AboutDialog
          open
          onClose={jest.fn()}
          shellBuild="shell-42"
          remotes={[
            {
              name: 'remote_profile',
              active: {
                entry: 'https://cdn.example.com/profile/1.3.0/remoteEntry.js',
                integrity: null,
                version: '1.3.0',
                buildId: null,
                channel: 'stable',
                isFallback: true,
              },
            },
            {
              name: 'remote_password',
              active: {
                entry: 'http://localhost:3002/remoteEntry.js',
                integrity: null,
                version: '2.0.0',
                buildId: 'b-200',
                channel: 'canary',
                isFallback: false,
              },
            },
          ]}
        />
      </PortalThemeProvider>,
    );
    const dialog = screen.getByRole('dialog', { name: 'About' });
    expect(within(dialog).getByText('Build shell-42')).toBeInTheDocument();
    expect(within(dialog).getByText('Version 2.0.0 · build b-200')).toBeInTheDocument();
    expect(
      within(dialog).getByText('Version 1.3.0 · previous version, the latest did not load'),
    ).toBeInTheDocument();
    expect(within(dialog).getByText('My Profile')).toBeInTheDocument();
    expect(within(dialog).getByText('Password')).toBeInTheDocument();
  });
});
