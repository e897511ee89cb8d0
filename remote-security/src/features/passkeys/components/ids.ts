/** The Passkeys section's element ids: where the section and its hook send the focus back. */
export const IDS = {
  title: 'passkeys-title',
  add: 'passkeys-add',
  unsupported: 'passkeys-unsupported',
  hosted: 'passkeys-hosted',
  notice: 'passkeys-notice',
} as const;
export const renameId = (id: string) => `passkey-rename-${id}`;
export const removeId = (id: string) => `passkey-remove-${id}`;

export const byId = (id: string | undefined) => (id === undefined ? null : document.getElementById(id));
