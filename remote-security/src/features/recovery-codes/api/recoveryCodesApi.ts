import {
  apiCallers,
  type ApiClient,
  type CallOptions,
  type RecoveryCodesGenerated,
  type RecoveryCodesStatus,
} from 'shared-auth';

/** GET /api/recoverycodes/{sub}: whether codes can be used here, how many are left, and when they were made. */
export async function getRecoveryCodesStatus(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<RecoveryCodesStatus> {
  return apiCallers.recoveryCodesStatus(client, { params: { sub } }, options);
}

/** POST /api/recoverycodes/{sub}/generate: a new set of codes, shown once; the old set stops working. */
export async function generateRecoveryCodes(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<RecoveryCodesGenerated> {
  return apiCallers.recoveryCodesGenerate(client, { params: { sub }, body: {} }, options);
}
