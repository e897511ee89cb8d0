import { render, screen } from '@testing-library/react';
import SecurityPage from './SecurityPage.js';

jest.mock('../features/security/components/SecurityPage.js', () => ({
  SecurityPage: () => <h1>Security</h1>,
}));

describe('the exposed Security page', () => {
  it('renders the page, then a line naming its build', () => {
    render(<SecurityPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Security' })).toBeInTheDocument();
    // Under jest nothing defines __BUILD_ID__; webpack puts BUILD_ID or the package version there.
    expect(screen.getByText('Security · build dev')).toBeInTheDocument();
  });
});
