/** The Devices section's element ids: where the focus goes after a sign-out, a cancel or a reload. */
export const IDS = {
  title: 'devices-title',
  notice: 'devices-notice',
  others: 'devices-sign-out-others',
  everywhere: 'devices-sign-out-everywhere',
} as const;
export const signOutId = (sessionId: string) => `devices-sign-out-${sessionId}`;

export const byId = (id: string) => document.getElementById(id);
