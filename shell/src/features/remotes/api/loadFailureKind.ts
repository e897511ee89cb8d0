// Why a remote failed to load, for the load report. The browser says no more than "error" for a script it
// refused (a wrong integrity) and one it could not fetch, and the MF runtime wraps both in the same RUNTIME-008,
// so the file is fetched once more, with CORS as the script was, and compared with what the page expected.
import type { RemoteLoadFailureKind } from 'shared-auth';
import { versionRefusalOf } from '../components/RemoteLoadFailed.js';
import type { ActiveRemote } from '../model/activeRemotes.js';

export interface RecheckDeps {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** `sha384-<base64>` of the bytes. */
  integrityOf: (bytes: ArrayBuffer) => Promise<string>;
}

async function sha384Integrity(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-384', bytes));
  return `sha384-${btoa(String.fromCharCode(...digest))}`;
}

export const browserRecheck: RecheckDeps = {
  fetch: (url, init) => fetch(url, init),
  integrityOf: sha384Integrity,
};

/** webpack's ChunkLoadError (a remote's own chunk) names the URL it failed on and why. */
function chunkFailure(error: unknown): { url: string; type: string } | undefined {
  if (!(error instanceof Error) || error.name !== 'ChunkLoadError') return undefined;
  const { request, type } = error as Error & { request?: unknown; type?: unknown };
  return typeof request === 'string'
    ? { url: request, type: typeof type === 'string' ? type : '' }
    : undefined;
}

/** The file as the browser would get it for a crossorigin="anonymous" script; undefined when it is unreachable. */
async function refetch(url: string, deps: RecheckDeps): Promise<ArrayBuffer | undefined> {
  try {
    const response = await deps.fetch(url, { mode: 'cors', credentials: 'omit', cache: 'no-store' });
    return response.ok ? await response.arrayBuffer() : undefined;
  } catch {
    return undefined;
  }
}

export async function loadFailureKind(
  error: unknown,
  active: Pick<ActiveRemote, 'entry' | 'integrity'>,
  deps: RecheckDeps = browserRecheck,
): Promise<RemoteLoadFailureKind> {
  if (versionRefusalOf(error)) return 'version-contract';
  // The remote's code arrived and threw while it was evaluated: it ran, so it is the remote's fault, not the wire's.
  if (error instanceof Error && /ScriptExecutionError/.test(error.message)) return 'render';
  const chunk = chunkFailure(error);
  if (chunk) {
    if (chunk.type === 'timeout') return 'network';
    // The chunk's own hash is in the remote's runtime, not here: a chunk that is reachable with CORS and yet was
    // refused as a script is one whose bytes did not match that hash.
    return (await refetch(chunk.url, deps)) ? 'integrity' : 'network';
  }
  if (!active.integrity) return 'network';
  const bytes = await refetch(active.entry, deps);
  if (!bytes) return 'network';
  // Reachable and as expected now: the failure was on the way (a dropped connection), not the file.
  return (await deps.integrityOf(bytes)) === active.integrity ? 'network' : 'integrity';
}
