import { render, screen } from '@testing-library/react';
import { App } from 'antd';
import { useToast } from './toast.js';

function Saver() {
  const toast = useToast();
  return (
    <button type="button" onClick={() => toast('Your changes are saved.')}>
      Save
    </button>
  );
}

describe('useToast', () => {
  it('shows the title in a notification', async () => {
    render(
      <App>
        <Saver />
      </App>,
    );
    screen.getByRole('button', { name: 'Save' }).click();
    expect(await screen.findByText('Your changes are saved.')).toBeInTheDocument();
  });
});
