// The settings call's path on its own, with no imports: the shell's first script asks for the settings before
// the shared modules load, and must not pull zod and the rest of the contract into its first download.

/** GET: the portal's settings (spec section 7); `apiCalls.settings` declares the call with this path. */
export const SETTINGS_PATH = '/api/clientConfiguration/getSettings';
