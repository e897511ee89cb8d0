import { lazy, Suspense } from 'react';
import type { QRCodeProps } from 'antd';
import { Spin } from './Spin.js';

const AntQRCode = lazy(() => import('./qr-code-impl.js'));

/**
 * antd's QRCode, loaded on first use. It costs about 6.6 KiB gzip; kept out of the shared first load, it is
 * fetched (from the shell's build, like the rest of this package) only when a page shows a QR code.
 */
export function QRCode(props: QRCodeProps) {
  return (
    <Suspense fallback={<Spin aria-label="Loading the QR code" />}>
      <AntQRCode {...props} />
    </Suspense>
  );
}
