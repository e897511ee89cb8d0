import { z } from 'zod';

/**
 * Releases (issue 23): each remote's versions kept by the server, one stable and at most one canary with a
 * percentage, resolved per caller into the set the shell loads (`GET /remotes.json`); the release API a remote's team
 * calls with its deploy key (`Authorization: Deploy <key>`, one key per remote); and the load reports the shell sends,
 * from which the server rolls a failing canary back by itself.
 *
 * The canary bucket rule (computed by the server only; the browser never needs it): `bucket` = the first 4 bytes of
 * SHA-256(`<sub>:<remote name>`) read as a big-endian uint32, mod 100; a signed-in holder is in the canary when
 * `bucket < percent`. Anonymous callers always get stable. So one person sees the same version on every load and
 * every device, and a larger percentage only adds people.
 */
export const CANARY_BUCKET_RULE = 'uint32be(sha256(`${sub}:${remote}`)[0..4]) % 100 < percent';

/** A remote's name: a JS identifier, as in the remotes file (remotesConfigSchema). */
export const releaseRemoteNameSchema = z
  .string()
  .max(64)
  .regex(/^[A-Za-z_$][\w$]*$/, { error: 'A remote name must be a JS identifier, e.g. remote_profile' });

/** A version label: `1.4.0`, `1.4.0-rc.1`, `2026-11-28.3`. */
export const releaseVersionSchema = z.string().regex(/^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$/, {
  error: 'A version is 1 to 64 letters, digits, dots, dashes, pluses or underscores, e.g. 1.4.0',
});

/** The Subresource Integrity value of one file: its SHA-384, base64 (`integrity` of a script tag). */
export const integritySchema = z.string().regex(/^sha384-[A-Za-z0-9+/]{64}$/, {
  error: 'integrity must be sha384-<base64 of the SHA-384 of remoteEntry.js>',
});

const entryUrlSchema = z.url({ protocol: /^https?$/ }).max(2000);

/** Where the shell loads a remote from, for this caller. */
export const resolvedRemoteSchema = z.object({
  /** URL of the remote's remoteEntry.js (what today's remotes file holds). */
  entry: entryUrlSchema,
  /** null for `bootstrap` (the static remotes file knows no hash). */
  integrity: integritySchema.nullable(),
  version: z.string().nullable(),
  buildId: z.string().nullable(),
  /** `bootstrap`: the static remotes file, no release of this remote yet. */
  channel: z.enum(['stable', 'canary', 'bootstrap']),
  /** The previous stable, to load instead within the same page load when this one fails; null when none. */
  fallback: z.object({ entry: entryUrlSchema, integrity: integritySchema, version: z.string() }).nullable(),
});
export type ResolvedRemote = z.infer<typeof resolvedRemoteSchema>;

/** `GET /remotes.json`: a superset of remotesConfigSchema (`{ remotes: { name: { entry } } }`), so an old shell reads it. */
export const resolvedRemotesSchema = z.object({
  remotes: z.record(releaseRemoteNameSchema, resolvedRemoteSchema),
});
export type ResolvedRemotes = z.infer<typeof resolvedRemotesSchema>;

export const REMOTE_LOAD_FAILURE_KINDS = ['network', 'integrity', 'version-contract', 'render'] as const;
export type RemoteLoadFailureKind = (typeof REMOTE_LOAD_FAILURE_KINDS)[number];

/** `POST /api/v1/remote-loads`: how one remote's load went in one page (kind required when it failed). */
export const remoteLoadReportSchema = z
  .object({
    remote: releaseRemoteNameSchema,
    version: releaseVersionSchema.nullable(),
    outcome: z.enum(['loaded', 'failed']),
    kind: z.enum(REMOTE_LOAD_FAILURE_KINDS).optional(),
  })
  .refine((report) => report.outcome === 'loaded' || report.kind !== undefined, {
    error: 'A failed load says its kind: network, integrity, version-contract or render',
    path: ['kind'],
  });
export type RemoteLoadReport = z.infer<typeof remoteLoadReportSchema>;

/** The path of every release call: the remote it acts on. */
export const releaseParamsSchema = z.object({ remote: releaseRemoteNameSchema });

/** POST /api/v1/releases/{remote}/versions */
export const publishBodySchema = z.object({
  version: releaseVersionSchema,
  entry: entryUrlSchema,
  integrity: integritySchema,
  buildId: z.string().min(1).max(100),
});
export type PublishBody = z.infer<typeof publishBodySchema>;

/** POST /api/v1/releases/{remote}/canary */
export const canaryBodySchema = z.object({
  version: releaseVersionSchema,
  percent: z.int().min(1).max(99),
});
export type CanaryBody = z.infer<typeof canaryBodySchema>;

/** POST /api/v1/releases/{remote}/promote: the canary, or any published version, becomes stable. */
export const promoteBodySchema = z.object({ version: releaseVersionSchema });
export type PromoteBody = z.infer<typeof promoteBodySchema>;

export const RELEASE_ACTIONS = ['publish', 'canary', 'promote', 'rollback', 'auto-rollback'] as const;
export type ReleaseAction = (typeof RELEASE_ACTIONS)[number];

/** Who acted when the server rolled a canary back by itself. */
export const RELEASE_SYSTEM_ACTOR = 'system';

/** One remote's releases: what is live, every version with its counts, and the last 50 actions, newest first. */
export const releaseStatusSchema = z.object({
  stable: z.string().nullable(),
  canary: z.object({ version: z.string(), percent: z.int() }).nullable(),
  versions: z.array(
    z.object({
      version: z.string(),
      entry: z.string(),
      integrity: z.string(),
      buildId: z.string(),
      /** The deploy key's label. */
      publishedBy: z.string(),
      /** ISO 8601, UTC. */
      publishedAt: z.string(),
      loads: z.int(),
      failures: z.int(),
    }),
  ),
  events: z.array(
    z.object({
      /** ISO 8601, UTC. */
      at: z.string(),
      action: z.enum(RELEASE_ACTIONS),
      version: z.string().nullable(),
      /** The deploy key's label, or `system`. */
      by: z.string(),
    }),
  ),
});
export type ReleaseStatus = z.infer<typeof releaseStatusSchema>;

/** `Authorization: Deploy <key>`: `pdk_` and 32 random bytes, base64url. */
export const DEPLOY_KEY_PREFIX = 'pdk_';
export const DEPLOY_AUTHORIZATION_SCHEME = 'Deploy';
