import { useEffect, useState } from 'react';
import type { ApiClient } from '../api-client.js';
import { apiCallers } from '../contract/caller.js';

/** GET /api/profile/{sub}/isfederated */
export async function getIsFederated(
  client: ApiClient,
  sub: string,
  { signal }: { signal?: AbortSignal } = {},
): Promise<boolean> {
  const answer = await apiCallers.isFederated(client, { params: { sub } }, signal ? { signal } : {});
  return answer.isFederated;
}

/**
 * The federated flag of the signed-in user: `known` when the page was given it, otherwise the API's answer
 * (undefined until it comes). A failed call counts as not federated (spec section 6); the server still refuses
 * federated users whatever the page shows. A call for a user who is gone by the time it answers is aborted.
 */
export function useIsFederated(client: ApiClient, sub: string, known?: boolean): boolean | undefined {
  const [answer, setAnswer] = useState<{ sub: string; isFederated: boolean }>();

  useEffect(() => {
    if (known !== undefined) return;
    const controller = new AbortController();
    const settle = (isFederated: boolean) => {
      if (!controller.signal.aborted) setAnswer({ sub, isFederated });
    };
    getIsFederated(client, sub, { signal: controller.signal }).then(settle, () => settle(false));
    return () => controller.abort();
  }, [client, sub, known]);

  if (known !== undefined) return known;
  return answer?.sub === sub ? answer.isFederated : undefined;
}
