/**
 * What the Devices and the Activity sections show around their list, the same way in both: a spinner while it
 * loads, the reason and "Try again" when it could not be read, and the list itself without bullets.
 */
import type { CSSProperties } from 'react';
import { Button, Spin } from 'shared-ui';

/** A list of rows, each with its own divider: no bullets, no indent. */
export const PLAIN_LIST_STYLE: CSSProperties = { listStyle: 'none', padding: 0, margin: '0 0 12px' };

export function ListLoading({ label }: { label: string }) {
  return <Spin aria-label={label} />;
}

interface ListLoadFailedProps {
  /** The reason, as the reducer keeps it (a failed load always has one). */
  message: string | undefined;
  retryLabel: string;
  onRetry: () => void;
}

export function ListLoadFailed({ message, retryLabel, onRetry }: ListLoadFailedProps) {
  return (
    <>
      <p role="alert">{message}</p>
      <Button onClick={onRetry}>{retryLabel}</Button>
    </>
  );
}
