import { Button } from 'shared-ui';
import { PageMessage } from '../../../components/PageMessage.js';

/** The contained message of a remote that did not load or crashed, with a Retry that needs no reload. */
export function RemoteLoadFailed({ label, onRetry }: { label: string; onRetry: () => void }) {
  return (
    <PageMessage
      status="warning"
      title={`${label} could not be loaded`}
      subTitle="This part of the portal is not available right now. The rest of the portal still works."
      extra={
        <Button type="primary" onClick={onRetry}>
          Retry
        </Button>
      }
    />
  );
}
