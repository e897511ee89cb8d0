import { Button } from 'shared-ui';
import { PageMessage } from '../../../components/PageMessage.js';

/** A remote refused because it was built against another major version of a package the portal shares. */
export interface VersionRefusal {
  /** The shared singleton, e.g. 'shared-auth'. */
  sharedPackage: string;
  /** The range the remote was built for, e.g. '^2.0.0'. */
  required: string;
  /** The version this portal provides, e.g. '1.0.0'. */
  provided: string;
}

// How the MF runtime refuses a strictVersion singleton (runtime-core's getRegisteredShare) instead of giving the
// remote a second copy: "Version 1.0.0 from shell of shared singleton module shared-auth does not satisfy the
// requirement of remote_profile which needs ^2.0.0)".
const SINGLETON_REFUSAL =
  /Version (\S+) from \S+ of shared singleton module (\S+) does not satisfy the requirement of \S+ which needs ([^\s)]+)/;

/** The version refusal behind a remote's load failure, or undefined when it failed for another reason. */
export function versionRefusalOf(error: unknown): VersionRefusal | undefined {
  const match = error instanceof Error ? SINGLETON_REFUSAL.exec(error.message) : null;
  if (!match) return undefined;
  const [, provided = '', sharedPackage = '', required = ''] = match;
  return { sharedPackage, required, provided };
}

interface RemoteLoadFailedProps {
  label: string;
  onRetry: () => void;
  /** Why the remote failed, when known: a version refusal gets its own message. */
  error?: unknown;
}

/** The contained message of a remote that did not load or crashed, with a Retry that needs no reload. */
export function RemoteLoadFailed({ label, onRetry, error }: RemoteLoadFailedProps) {
  const retry = (
    <Button type="primary" onClick={onRetry}>
      Retry
    </Button>
  );
  const refusal = versionRefusalOf(error);
  if (refusal) {
    return (
      <PageMessage
        status="warning"
        title={`${label} was built for a different version of the portal`}
        subTitle={`It needs ${refusal.sharedPackage} ${refusal.required}; this portal provides ${refusal.provided}. The rest of the portal still works.`}
        extra={retry}
      />
    );
  }
  return (
    <PageMessage
      status="warning"
      title={`${label} could not be loaded`}
      subTitle="This part of the portal is not available right now. The rest of the portal still works."
      extra={retry}
    />
  );
}
