import { lazy, Suspense } from 'react';
import type { QRCodeProps } from 'antd';
import { Spin } from './Spin.js';

const AntQRCode = lazy(() => import('./qr-code-impl.js'));

/** antd's default size of the code, in CSS px. */
const ANTD_QR_SIZE = 160;

/**
 * antd's QRCode, loaded on first use. It costs about 6.6 KiB gzip; kept out of the shared first load, it is
 * fetched (from the shell's build, like the rest of this package) only when a page shows a QR code.
 * While it loads, its box already has the code's size: what is below it does not move when the code is drawn, so a
 * click there (the setup key's button) is not lost to the shift.
 */
export function QRCode(props: QRCodeProps) {
  const size = props.size ?? ANTD_QR_SIZE;
  const box = { width: props.style?.width ?? size, height: props.style?.height ?? size };
  return (
    <Suspense
      fallback={
        <div style={{ ...box, display: 'grid', placeItems: 'center' }}>
          <Spin aria-label="Loading the QR code" />
        </div>
      }
    >
      <AntQRCode {...props} />
    </Suspense>
  );
}
