export {
  AuthProvider,
  useAuth,
  useApiClient,
  type PortalAuth,
  type PortalUser,
  type SignInAgain,
} from './auth-context.js';
export {
  ApiError,
  createApiClient,
  isApiError,
  parseJsonTwice,
  type AccessTokenGetter,
  type ApiClient,
  type ApiClientOptions,
  type RenewSession,
} from './api-client.js';
export * from './session/index.js';
export * from './contract/index.js';
