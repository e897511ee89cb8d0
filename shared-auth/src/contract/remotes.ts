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
 * What each remote exposes and the shell expects: the container name and the module of its page.
 * Remote pages are React components that read everything else (user, token getter, API base) from shared-auth.
 */
export const REMOTE_PAGES = {
  remote_profile: './ProfilePage',
  remote_password: './PasswordPage',
  remote_security: './SecurityPage',
} as const;
export type RemoteName = keyof typeof REMOTE_PAGES;
