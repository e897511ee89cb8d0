import { render, screen } from '@testing-library/react';
import PasswordPage from './PasswordPage.js';

jest.mock('../features/password/components/PasswordPage.js', () => ({
  PasswordPage: () => <h1>Password</h1>,
}));

describe('the exposed Password page', () => {
  it('renders the page, its build kept out of view in data-build', () => {
    render(<PasswordPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Password' })).toBeInTheDocument();
    // Under jest nothing defines __BUILD_ID__; webpack puts BUILD_ID or the package version there.
    expect(screen.getByRole('heading', { level: 1 }).closest('[data-build]')).toHaveAttribute(
      'data-build',
      'dev',
    );
    expect(screen.queryByText(/· build/)).not.toBeInTheDocument();
  });
});
