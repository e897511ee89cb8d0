import { render, screen, waitFor } from '@testing-library/react';
import { QRCode } from './QRCode.js';

describe('QRCode', () => {
  it('loads antd QRCode on first use and renders the value as an SVG', async () => {
    const { container } = render(
      <QRCode value="otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP" type="svg" />,
    );
    expect(screen.getByLabelText('Loading the QR code')).toBeInTheDocument();
    await waitFor(() => expect(container.querySelector('svg path')).not.toBeNull());
  });
});
