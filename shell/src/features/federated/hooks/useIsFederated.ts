import { useEffect, useState } from 'react';
import type { ApiClient } from 'shared-auth';
import { getIsFederated } from '../api/getIsFederated.js';

/**
 * The federated flag of the signed-in user: undefined until the call answers. A failed call counts as not
 * federated (spec section 6); the server still refuses federated users whatever the page shows.
 */
export function useIsFederated(client: ApiClient, sub: string): boolean | undefined {
  const [answer, setAnswer] = useState<{ sub: string; isFederated: boolean }>();

  useEffect(() => {
    let current = true;
    getIsFederated(client, sub).then(
      (isFederated) => current && setAnswer({ sub, isFederated }),
      () => current && setAnswer({ sub, isFederated: false }),
    );
    return () => {
      current = false;
    };
  }, [client, sub]);

  return answer?.sub === sub ? answer.isFederated : undefined;
}
