import { render, screen } from '@testing-library/react';
import { App } from 'antd';
import { PortalThemeProvider, TOAST_TOP_PX } from './theme.js';
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

  it("starts below the shell's header, so a toast never covers its user menu", async () => {
    render(
      <PortalThemeProvider>
        <Saver />
      </PortalThemeProvider>,
    );
    screen.getByRole('button', { name: 'Save' }).click();
    await screen.findByText('Your changes are saved.');
    const list = document.querySelector<HTMLElement>('.ant-notification-topRight');
    expect(list?.style.getPropertyValue('--notification-top')).toBe(`${TOAST_TOP_PX}px`);
    expect(TOAST_TOP_PX).toBeGreaterThanOrEqual(64);
  });
});
