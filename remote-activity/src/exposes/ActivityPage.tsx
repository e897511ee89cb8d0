// The module the shell loads (REMOTE_PAGES.remote_activity in shared-auth's contract), and what `./mount` renders.
// The page composes the features, Devices then Activity; features never import each other.
import { useCallback, useState } from 'react';
import { Typography } from 'shared-ui';
import { ActivitySection } from '../features/activity/components/ActivitySection.js';
import { DevicesSection } from '../features/devices/components/DevicesSection.js';

/** BUILD_ID at build time, else the package version (webpack.base.js); 'dev' where nothing defines it (jest). */
const BUILD = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

export const ACTIVITY_PAGE_TITLE = 'Devices & activity';

/** The spec's text for a page federated users may not use (spec sections 2 and 6). */
const FEDERATED_UNAVAILABLE = 'Resource not available for federated users';

/**
 * The Devices & activity page (issue 22): where the account is signed in, then its recent security events. Its root
 * says which build of this remote it is (data-build), for the team, out of the holder's view. Federated accounts
 * get the sections too: only the server knows whose the data is (an Okta org's: theirs; the portal's own
 * provider's: refused), and the shell shows the page only where it is theirs. One reached by its address, or
 * embedded alone, where the server refuses them sees the spec's one line, as on Password and Security.
 */
export default function ActivityPage() {
  // A sign-out on Devices is an event of its own: Activity reads its list again to show it.
  const [activityRefresh, setActivityRefresh] = useState(0);
  const refreshActivity = useCallback(() => setActivityRefresh((count) => count + 1), []);
  const [federatedRefused, setFederatedRefused] = useState(false);
  const refuseFederated = useCallback(() => setFederatedRefused(true), []);
  return (
    <div data-build={BUILD}>
      <section aria-labelledby="activity-page-title" style={{ maxWidth: 760 }}>
        <Typography.Title id="activity-page-title" level={1} style={{ fontSize: 28 }}>
          {ACTIVITY_PAGE_TITLE}
        </Typography.Title>
        {federatedRefused ? (
          <p>{FEDERATED_UNAVAILABLE}</p>
        ) : (
          <>
            <DevicesSection onSignedOut={refreshActivity} onFederatedRefused={refuseFederated} />
            <ActivitySection refreshSignal={activityRefresh} onFederatedRefused={refuseFederated} />
          </>
        )}
      </section>
    </div>
  );
}
