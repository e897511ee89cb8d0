import { render, screen } from '@testing-library/react';
import ProfilePage from './ProfilePage.js';

jest.mock('../features/profile/components/ProfilePage.js', () => ({
  ProfilePage: () => <h1>My Profile</h1>,
}));

describe('the exposed My Profile page', () => {
  it('renders the page, its build kept out of view in data-build', () => {
    render(<ProfilePage />);
    expect(screen.getByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument();
    // Under jest nothing defines __BUILD_ID__; webpack puts BUILD_ID or the package version there.
    expect(screen.getByRole('heading', { level: 1 }).closest('[data-build]')).toHaveAttribute(
      'data-build',
      'dev',
    );
    expect(screen.queryByText(/· build/)).not.toBeInTheDocument();
  });
});
