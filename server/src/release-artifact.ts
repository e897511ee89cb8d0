/**
 * What `pnpm release publish` sends about a build (release-cli.ts): the entry URL, the Subresource Integrity hash
 * (SHA-384, base64) of its `remoteEntry.js` and its build id, read from a built folder or from the URL it was
 * uploaded to. The browser refuses an entry whose bytes differ from this hash, so the hash must be of the very
 * bytes the host serves: a folder's copy is checked against its upload.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** The name every build gives its entry (webpack.base.js, `filename` of the federation plugin). */
export const REMOTE_ENTRY_FILE = 'remoteEntry.js';
/** The federation manifest a remote's build writes beside its entry (webpack.base.js, `manifest`). */
export const MANIFEST_FILE = 'mf-manifest.json';
/** A remote's entry is a few kB; anything this large is not one, and is not read further. */
export const MAX_ARTIFACT_BYTES = 5 * 1024 * 1024;

/** A refusal to publish that the holder of the command can fix; its message says how. */
export class ArtifactError extends Error {
  override readonly name = 'ArtifactError';
}

export interface ReleaseArtifact {
  entry: string;
  integrity: string;
  buildId: string;
  /** Where the build id came from, so the output shows what was sent. */
  buildIdSource: 'manifest' | 'option' | 'version';
}

export interface ArtifactFetch {
  fetch: typeof fetch;
  timeoutMs: number;
}

/** The part of the federation manifest the CLI reads: the container's name and the build's version. */
const manifestSchema = z.object({
  metaData: z.object({
    name: z.string(),
    buildInfo: z.object({ buildVersion: z.string().min(1).max(100) }).optional(),
  }),
});
type Manifest = z.infer<typeof manifestSchema>;

/** `sha384-<base64>`: the `integrity` attribute's form for one hash. */
export function integrityOf(bytes: Uint8Array): string {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** The entry URL, checked: http(s), no credentials, and naming the build's `remoteEntry.js`. */
export function checkEntryUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ArtifactError(
      `${text} is not a URL; give the full address of the uploaded ${REMOTE_ENTRY_FILE}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ArtifactError(`${text}: the entry URL must be https:// (or http:// for a local portal)`);
  }
  if (url.username || url.password)
    throw new ArtifactError(`${text}: the entry URL must not hold credentials`);
  if (!url.pathname.endsWith(`/${REMOTE_ENTRY_FILE}`)) {
    throw new ArtifactError(`${text}: the entry URL must end in /${REMOTE_ENTRY_FILE}`);
  }
  return url;
}

/**
 * The bytes at `url`, or undefined when the host answers 404. Refuses an answer over MAX_ARTIFACT_BYTES (by its
 * Content-Length, else while reading) and one slower than the timeout.
 */
export async function fetchCapped(
  url: URL,
  { fetch, timeoutMs }: ArtifactFetch,
): Promise<Uint8Array | undefined> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new ArtifactError(`Could not fetch ${url.href}: ${reasonOf(error)}`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ArtifactError(`Could not fetch ${url.href}: the host answered ${response.status}`);
  }
  const tooLarge = () =>
    new ArtifactError(
      `${url.href} is larger than ${MAX_ARTIFACT_BYTES / 1024 / 1024} MB: not a remote's file`,
    );
  if (Number(response.headers.get('content-length') ?? 0) > MAX_ARTIFACT_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      size += next.value.byteLength;
      // A host that sends no Content-Length (or a false one) is cut off here, not read to the end.
      if (size > MAX_ARTIFACT_BYTES) {
        await reader?.cancel();
        throw tooLarge();
      }
      chunks.push(next.value);
    }
  } catch (error) {
    if (error instanceof ArtifactError) throw error;
    throw new ArtifactError(`Could not fetch ${url.href}: ${reasonOf(error)}`);
  }
  return Buffer.concat(chunks);
}

/** The manifest's build id, after checking the build is this remote's. */
function buildIdOf(manifest: Manifest, remote: string, where: string): string | undefined {
  if (manifest.metaData.name !== remote) {
    throw new ArtifactError(
      `${where} is a build of ${manifest.metaData.name}, not of ${remote}: publish it to its own remote`,
    );
  }
  return manifest.metaData.buildInfo?.buildVersion;
}

function parseManifest(text: string, where: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ArtifactError(`${where} is not JSON: is it a Module Federation manifest?`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new ArtifactError(`${where} is not a Module Federation manifest`);
  return parsed.data;
}

export interface ArtifactRequest {
  /** The remote's container name (remote_profile): the manifest must name it. */
  remote: string;
  version: string;
  /** A build folder or the URL of an uploaded remoteEntry.js. */
  source: string;
  /** Where the folder was uploaded to (required for a folder). */
  entryUrl?: string | undefined;
  /** Overrides the manifest's build id. */
  buildId?: string | undefined;
}

/** Whether the publish source names a URL rather than a folder. */
function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/**
 * The artefact of a build folder (its remoteEntry.js hashed, the build id from its manifest, checked against the
 * upload at `entryUrl`) or of an uploaded URL (fetched and hashed, with the manifest beside it when there is one).
 */
export async function readArtifact(request: ArtifactRequest, io: ArtifactFetch): Promise<ReleaseArtifact> {
  const fromUrl = isUrl(request.source);
  if (fromUrl && request.entryUrl !== undefined) {
    throw new ArtifactError('--entry-url is for a build folder; a URL is its own entry');
  }
  const entryText = fromUrl ? request.source : request.entryUrl;
  if (entryText === undefined) {
    throw new ArtifactError(
      `--entry-url is required with a folder: the URL of ${REMOTE_ENTRY_FILE} where you uploaded ${request.source}`,
    );
  }
  const entry = checkEntryUrl(entryText);
  const manifestUrl = new URL(MANIFEST_FILE, entry);

  let entryBytes: Uint8Array;
  let manifest: Manifest | undefined;
  if (fromUrl) {
    const fetched = await fetchCapped(entry, io);
    if (fetched === undefined) throw new ArtifactError(`${entry.href} answered 404: upload the build first`);
    entryBytes = fetched;
    const manifestBytes = await fetchCapped(manifestUrl, io);
    manifest = manifestBytes && parseManifest(Buffer.from(manifestBytes).toString('utf8'), manifestUrl.href);
  } else {
    entryBytes = await readLocal(request.source, REMOTE_ENTRY_FILE, true);
    const manifestBytes = await readLocal(request.source, MANIFEST_FILE, false);
    manifest =
      manifestBytes &&
      parseManifest(Buffer.from(manifestBytes).toString('utf8'), path.join(request.source, MANIFEST_FILE));
    // The browser checks the uploaded bytes against this hash: a stale or partial upload would fail every load.
    const uploaded = await fetchCapped(entry, io);
    if (uploaded === undefined) {
      throw new ArtifactError(`${entry.href} answered 404: upload ${request.source} there first`);
    }
    if (integrityOf(uploaded) !== integrityOf(entryBytes)) {
      throw new ArtifactError(
        `${entry.href} differs from ${path.join(request.source, REMOTE_ENTRY_FILE)}: upload the folder again (never overwrite a live version)`,
      );
    }
  }

  const manifestWhere = fromUrl ? manifestUrl.href : path.join(request.source, MANIFEST_FILE);
  const fromManifest = manifest && buildIdOf(manifest, request.remote, manifestWhere);
  const [buildId, buildIdSource]: [string, ReleaseArtifact['buildIdSource']] =
    request.buildId !== undefined
      ? [request.buildId, 'option']
      : fromManifest !== undefined
        ? [fromManifest, 'manifest']
        : [request.version, 'version'];
  return { entry: entry.href, integrity: integrityOf(entryBytes), buildId, buildIdSource };
}

/** A file of the build folder; a missing one is undefined unless `required`. */
async function readLocal(dir: string, file: string, required: true): Promise<Uint8Array>;
async function readLocal(dir: string, file: string, required: false): Promise<Uint8Array | undefined>;
async function readLocal(dir: string, file: string, required: boolean): Promise<Uint8Array | undefined> {
  try {
    return await readFile(path.join(dir, file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      if (!required) return undefined;
      throw new ArtifactError(`${dir} has no ${file}: give the remote's build folder (its dist/)`);
    }
    throw new ArtifactError(`Could not read ${path.join(dir, file)}: ${reasonOf(error)}`);
  }
}

/** A network or file error's short reason (`ECONNREFUSED`, `The operation was aborted due to timeout`). */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
    if (typeof cause?.code === 'string') return cause.code;
    if (typeof cause?.message === 'string') return cause.message;
    if (error.name === 'TimeoutError') return 'no answer in time';
    return error.message;
  }
  return String(error);
}
