// Requests the page needs before anything can render. Started from index.ts, before the shared chunks (React,
// antd, the SDK) download and run, so they travel in parallel instead of one after the other. No dependencies:
// this runs before Module Federation has set up the shared modules.
const SETTINGS_URL = '/api/clientConfiguration/getSettings';
const REMOTES_URL = '/remotes.json';

const requests: { settings?: Promise<Response>; remotes?: Promise<Response> } = {};

export function startEarlyRequests(): void {
  requests.settings = fetch(SETTINGS_URL, { headers: { Accept: 'application/json' } });
  requests.remotes = fetch(REMOTES_URL, { headers: { Accept: 'application/json' }, cache: 'no-cache' });
  // Failures are reported by whoever takes the response; do not report them twice.
  requests.settings.catch(() => undefined);
  requests.remotes.catch(() => undefined);
}

/** The early response if there is one (each is used once; later calls fetch afresh, with `signal`). */
export function takeEarlyResponse(kind: 'settings' | 'remotes', signal?: AbortSignal): Promise<Response> {
  const early = requests[kind];
  requests[kind] = undefined;
  const url = kind === 'settings' ? SETTINGS_URL : REMOTES_URL;
  return (
    early ??
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-cache', ...(signal ? { signal } : {}) })
  );
}
