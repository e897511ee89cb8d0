/** Paths of the spec's calls (section 7), relative to the API base URL. */
export const apiPaths = {
  settings: () => '/api/clientConfiguration/getSettings',
  profileUpdate: (sub: string) => `/api/profile/${encodeURIComponent(sub)}/update`,
  isFederated: (sub: string) => `/api/profile/${encodeURIComponent(sub)}/isfederated`,
  passwordChange: (sub: string) => `/api/password/${encodeURIComponent(sub)}/change`,
} as const;
