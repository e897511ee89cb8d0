import { render, screen } from '@testing-library/react';
import { Spin } from './Spin.js';

describe('Spin', () => {
  it('is a status named by its aria-label', () => {
    render(<Spin aria-label="Loading the form" />);
    expect(screen.getByRole('status', { name: 'Loading the form' })).toBeInTheDocument();
  });

  it('stays a plain element without a name (e.g. beside a dialog text that names the wait)', () => {
    render(<Spin />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
