import { render, screen } from '@testing-library/react';
import { Result } from './Result.js';

describe('Result', () => {
  it('shows the title, the explanation and the actions, with a decorative icon', () => {
    render(
      <Result
        status="warning"
        title="My Profile could not be loaded"
        subTitle="Try again"
        extra={<button>Retry</button>}
      />,
    );
    expect(screen.getByText('My Profile could not be loaded')).toBeInTheDocument();
    expect(screen.getByText('Try again')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });
});
