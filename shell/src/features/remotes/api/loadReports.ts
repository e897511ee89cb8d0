// Tells the server how each remote's load went (POST /api/v1/remote-loads), so it counts loads and failures per
// version and rolls a failing canary back. At most one report per remote, version and outcome in a page load:
// a page that retries a broken remote ten times is one failure, not ten.
import { releaseCalls, remoteLoadReportSchema, type RemoteLoadReport } from 'shared-auth';

export type SendReport = (path: string, body: string) => void;

/** A beacon outlives the page (a report sent just before the holder leaves still arrives); fetch keepalive else. */
export const sendByBeacon: SendReport = (path, body) => {
  const blob = new Blob([body], { type: 'application/json' });
  if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(path, blob)) return;
  void fetch(path, {
    method: 'POST',
    keepalive: true,
    headers: { 'Content-Type': 'application/json' },
    body,
  }).catch(() => undefined);
};

export type ReportLoad = (report: RemoteLoadReport) => void;

export function createLoadReporter(send: SendReport = sendByBeacon): ReportLoad {
  const sent = new Set<string>();
  return (report) => {
    const key = `${report.remote}\n${report.version ?? ''}\n${report.outcome}`;
    if (sent.has(key)) return;
    // A version the contract would refuse (the server sent an odd label) is not worth a 400.
    const parsed = remoteLoadReportSchema.safeParse(report);
    if (!parsed.success) return;
    sent.add(key);
    send(releaseCalls.remoteLoadReport.path, JSON.stringify(parsed.data));
  };
}
