import {
  apiCallers,
  type ApiClient,
  type CallOptions,
  type Passkey,
  type PasskeyList,
  type PasskeyRegistrationBody,
  type PasskeyRegistrationOptions,
} from 'shared-auth';

/** GET /api/passkeys/{sub}: whether passkeys work here, how they are added and named, and the holder's passkeys. */
export async function getPasskeys(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<PasskeyList> {
  return apiCallers.passkeys(client, { params: { sub } }, options);
}

/** POST /api/passkeys/{sub}/registration/options: the options of the browser's ceremony (under step-up). */
export async function getRegistrationOptions(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<PasskeyRegistrationOptions['options']> {
  return (await apiCallers.passkeyRegistrationOptions(client, { params: { sub }, body: {} }, options))
    .options;
}

/** POST /api/passkeys/{sub}/registration/verify with the browser's answer: the new passkey, with a default name. */
export async function verifyRegistration(
  client: ApiClient,
  sub: string,
  response: PasskeyRegistrationBody['response'],
  options: CallOptions = {},
): Promise<Passkey> {
  return apiCallers.passkeyRegistrationVerify(client, { params: { sub }, body: { response } }, options);
}

/** PUT /api/passkeys/{sub}/{id}/name: the passkey, renamed. */
export async function renamePasskey(
  client: ApiClient,
  sub: string,
  id: string,
  name: string,
  options: CallOptions = {},
): Promise<Passkey> {
  return apiCallers.passkeyRename(client, { params: { sub, id }, body: { name } }, options);
}

/** DELETE /api/passkeys/{sub}/{id} (under step-up): the list without it. */
export async function removePasskey(
  client: ApiClient,
  sub: string,
  id: string,
  options: CallOptions = {},
): Promise<PasskeyList> {
  return apiCallers.passkeyRemove(client, { params: { sub, id } }, options);
}
