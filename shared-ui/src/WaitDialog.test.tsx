import { render, screen } from '@testing-library/react';
import { WaitDialog } from './WaitDialog.js';

describe('WaitDialog', () => {
  it('shows a dialog named by its title, with its description', async () => {
    render(<WaitDialog open title="Saving" description="Please wait a moment while we save your changes" />);
    const dialog = await screen.findByRole('dialog', { name: 'Saving' });
    expect(dialog).toHaveTextContent('Please wait a moment while we save your changes');
  });

  it('offers no way to close it', async () => {
    render(<WaitDialog open title="Loading" />);
    await screen.findByRole('dialog', { name: 'Loading' });
    expect(screen.queryByRole('button', { name: /close/i })).not.toBeInTheDocument();
  });

  it('renders nothing when closed', () => {
    render(<WaitDialog open={false} title="Loading" />);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
