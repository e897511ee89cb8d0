// Requests the page needs before anything can render. Started from index.ts, before the shared chunks (React,
// antd, the SDK) download and run, so they travel in parallel instead of one after the other. No shared modules:
// this runs before Module Federation has set them up (the settings path is the contract's import-free module).
import { SETTINGS_PATH } from 'shared-auth/contract/settings-path';
import { storedAccessToken } from './storedAccessToken.js';

const REMOTES_URL = '/remotes.json';

const requests: { settings?: Promise<Response>; remotes?: Promise<Response> } = {};
let remotesSignedIn = false;

export function startEarlyRequests(): void {
  requests.settings = fetch(SETTINGS_PATH, { headers: { Accept: 'application/json' } });
  // With the holder's token from an earlier visit, the server resolves their canaries in this same request.
  const token = storedAccessToken();
  remotesSignedIn = token !== undefined;
  requests.remotes = fetch(REMOTES_URL, {
    headers: { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    cache: 'no-store',
  });
  // Failures are reported by whoever takes the response; do not report them twice.
  requests.settings.catch(() => undefined);
  requests.remotes.catch(() => undefined);
}

/** Whether the early remotes request carried a token (else the set is resolved again once the holder signs in). */
export function earlyRemotesSignedIn(): boolean {
  return remotesSignedIn;
}

/** The early response if there is one (each is used once; later calls fetch afresh, with `signal`). */
export function takeEarlyResponse(kind: 'settings' | 'remotes', signal?: AbortSignal): Promise<Response> {
  const early = requests[kind];
  requests[kind] = undefined;
  const url = kind === 'settings' ? SETTINGS_PATH : REMOTES_URL;
  return (
    early ??
    fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-cache', ...(signal ? { signal } : {}) })
  );
}
