import { render, screen, waitFor } from '@testing-library/react';
import { QRCode } from './QRCode.js';

const VALUE = 'otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP';

/** Each code's box on the page (the outermost element it renders): its width and height. */
const boxes = (container: HTMLElement) =>
  [...container.querySelectorAll<HTMLElement>('[data-testid=code] > *')].map(({ style }) => ({
    width: style.width,
    height: style.height,
  }));

describe('QRCode', () => {
  // One render: antd's QRCode is loaded once per test file, so only the first render shows it loading.
  it('loads antd QRCode on first use, in a box of the drawn code’s size meanwhile, and draws the value as an SVG', async () => {
    const { container } = render(
      <>
        <div data-testid="code">
          <QRCode value={VALUE} type="svg" bordered={false} size={176} />
        </div>
        <div data-testid="code">
          <QRCode value={VALUE} type="svg" />
        </div>
        <div data-testid="code">
          <QRCode value={VALUE} type="svg" style={{ width: 120, height: 130 }} />
        </div>
      </>,
    );
    expect(screen.getAllByLabelText('Loading the QR code')).toHaveLength(3);
    const loading = boxes(container);
    expect(loading).toEqual([
      { width: '176px', height: '176px' },
      { width: '160px', height: '160px' }, // antd's default size
      { width: '120px', height: '130px' },
    ]);

    await waitFor(() => expect(container.querySelectorAll('svg path')).not.toHaveLength(0));
    expect(screen.queryByLabelText('Loading the QR code')).not.toBeInTheDocument();
    // Nothing below a code moves when it is drawn.
    expect(boxes(container)).toEqual(loading);
  });
});
