import { useEffect, useState } from 'react';
import type { ApiClient } from 'shared-auth';
import { getIsFederated } from './getIsFederated.js';

/**
 * The federated flag as the shell finds it: the given value when the page passed one, otherwise the API's
 * answer (undefined until it comes). A failed call counts as not federated (spec section 6); the server still
 * refuses federated users whatever the page shows.
 */
export function useIsFederated(
  client: ApiClient,
  sub: string,
  given: boolean | undefined,
): boolean | undefined {
  const [answer, setAnswer] = useState<{ sub: string; isFederated: boolean }>();

  useEffect(() => {
    if (given !== undefined) return;
    let current = true;
    getIsFederated(client, sub).then(
      (isFederated) => current && setAnswer({ sub, isFederated }),
      () => current && setAnswer({ sub, isFederated: false }),
    );
    return () => {
      current = false;
    };
  }, [client, sub, given]);

  if (given !== undefined) return given;
  return answer?.sub === sub ? answer.isFederated : undefined;
}
