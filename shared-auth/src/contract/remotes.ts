import { z } from 'zod';

/**
 * Runtime remote locations (a deploy-time file the shell fetches; never baked into its build).
 * Switching a remote to another version, or rolling back, is an edit of its `entry`.
 */
export const remotesConfigSchema = z.object({
  remotes: z.record(
    z
      .string()
      .regex(/^[A-Za-z_$][\w$]*$/, { error: 'A remote name must be a JS identifier, e.g. remote_profile' }),
    z.object({
      /** URL of the remote's remoteEntry.js. */
      entry: z.url({ protocol: /^https?$/ }),
    }),
  ),
});
export type RemotesConfig = z.infer<typeof remotesConfigSchema>;

/**
 * The contract between the shell and each remote. Its version is shared-auth's major version.
 * - Names: each remote's container name and the module of its page (REMOTE_PAGES), plus the framework-agnostic
 *   entry every remote also exposes (REMOTE_MOUNT_MODULE, typed in mount.ts). A remote exposes exactly these.
 * - Props and context: a page module's default export is a React component without props. It reads the user, the
 *   token getter and the API base URL from shared-auth (`useAuth()`, `useApiClient()`), which the shell provides once.
 * - Sharing: shared-auth, shared-ui and shared-router are Module Federation singletons with `strictVersion` and
 *   `requiredVersion: ^{the version it was built against}` (webpack.base.js). A remote built against another major,
 *   or a newer minor than the portal provides (a call the portal's copy lacks), is refused when it loads (the shell
 *   says so, on that page only); it never gets a second copy of the auth context. New calls, and a new remote
 *   in REMOTE_PAGES, are a new minor.
 * A change that breaks any of this is a new major version of shared-auth. remotes.contract.test.ts fails CI when a
 * remote's webpack exposes, the shell's pages or the remotes file drift from these names.
 */
export const REMOTE_PAGES = {
  remote_profile: './ProfilePage',
  remote_password: './PasswordPage',
  remote_security: './SecurityPage',
  remote_activity: './ActivityPage',
} as const;
export type RemoteName = keyof typeof REMOTE_PAGES;

/** The framework-agnostic entry (`mount(element, options)`, see mount.ts) that every remote exposes too. */
export const REMOTE_MOUNT_MODULE = './mount';

/** Exactly the modules a remote exposes: its page, for the shell, and the mount entry, for any other page. */
export function remoteExposes(remote: RemoteName): readonly string[] {
  return [REMOTE_PAGES[remote], REMOTE_MOUNT_MODULE];
}
