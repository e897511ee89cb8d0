// Tells the server how each remote's load went (POST /api/v1/remote-loads), so it counts loads and failures per
// version and rolls a failing canary back. At most one report per remote, version and outcome in a page load:
// a page that retries a broken remote ten times is one failure, not ten. A signed-in holder's report carries their
// access token: only such a report, from a holder of the canary's bucket, counts toward the canary's rollback (the
// server counts it once per holder), so anonymous posts cannot roll a canary back or keep a broken one live.
import { releaseCalls, remoteLoadReportSchema, type RemoteLoadReport } from 'shared-auth';
import { storedAccessToken } from '../../../lib/storedAccessToken.js';

export type SendReport = (path: string, body: string, accessToken: string | undefined) => void;

/**
 * With a token, fetch with keepalive (a beacon cannot carry an Authorization header; keepalive outlives the page
 * too). Without one (an anonymous page), a beacon, and fetch keepalive where the browser has none or refuses it.
 * A refused report (401 for a token the server no longer takes, 429) is not retried: it is only a report.
 */
export const sendReport: SendReport = (path, body, accessToken) => {
  if (accessToken === undefined) {
    const blob = new Blob([body], { type: 'application/json' });
    if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(path, blob)) return;
  }
  void fetch(path, {
    method: 'POST',
    keepalive: true,
    headers: {
      'Content-Type': 'application/json',
      ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }),
    },
    body,
  }).catch(() => undefined);
};

export type ReportLoad = (report: RemoteLoadReport) => void;

/**
 * One reporter for the page. `accessToken` is read when each report goes: the token okta-auth-js keeps for the
 * signed-in holder (the same one the page's first request sends), or undefined on an anonymous page.
 */
export function createLoadReporter(
  send: SendReport = sendReport,
  accessToken: () => string | undefined = storedAccessToken,
): ReportLoad {
  const sent = new Set<string>();
  return (report) => {
    const key = `${report.remote}\n${report.version ?? ''}\n${report.outcome}`;
    if (sent.has(key)) return;
    // A version the contract would refuse (the server sent an odd label) is not worth a 400.
    const parsed = remoteLoadReportSchema.safeParse(report);
    if (!parsed.success) return;
    sent.add(key);
    send(releaseCalls.remoteLoadReport.path, JSON.stringify(parsed.data), accessToken());
  };
}
