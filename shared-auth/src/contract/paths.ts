/** Paths of the spec's calls (section 7), relative to the API base URL. */
export const apiPaths = {
  settings: () => '/api/clientConfiguration/getSettings',
  profileUpdate: (sub: string) => `/api/profile/${encodeURIComponent(sub)}/update`,
  isFederated: (sub: string) => `/api/profile/${encodeURIComponent(sub)}/isfederated`,
  passwordChange: (sub: string) => `/api/password/${encodeURIComponent(sub)}/change`,
  stepUpChallenge: (sub: string) => `/api/stepup/${encodeURIComponent(sub)}/challenge`,
  stepUpSendChallenge: (sub: string, factor: 'email') =>
    `/api/stepup/${encodeURIComponent(sub)}/${factor}/challenge`,
  stepUpVerify: (sub: string, factor: 'google-auth' | 'email') =>
    `/api/stepup/${encodeURIComponent(sub)}/${factor}/verify`,
  reauthenticate: (sub: string) => `/api/stepup/${encodeURIComponent(sub)}/reauthenticate`,
  multifactor: (
    factor: 'googleauth' | 'email',
    sub: string,
    action: 'enroll' | 'details' | 'activate' | 'opt-in' | 'opt-out' | 'reset',
  ) => `/api/multifactor/${factor}/${encodeURIComponent(sub)}/${action}`,
} as const;
