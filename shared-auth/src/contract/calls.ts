import { z } from 'zod';
import { activityNotMeBodySchema, activityPageSchema, activityQuerySchema } from './activity.js';
import { defineCall, subParamsSchema, type ApiCall } from './call.js';
import {
  FACTOR_NAMES,
  MULTIFACTOR_PATH_SEGMENTS,
  STEP_UP_PATH_SEGMENTS,
  type FactorName,
} from './factors.js';
import {
  activateBodySchema,
  emailEnrollResponseSchema,
  factorDetailsResponseSchema,
  factorStatusResponseSchema,
  googleEnrollResponseSchema,
  preferredMethodBodySchema,
  preferredMethodResponseSchema,
  resetBodySchema,
} from './multifactor.js';
import {
  PASSKEY_STEP_UP_SEGMENT,
  passkeyAuthenticationBodySchema,
  passkeyAuthenticationOptionsSchema,
  passkeyListSchema,
  passkeyParamsSchema,
  passkeyRegistrationBodySchema,
  passkeyRegistrationOptionsSchema,
  passkeyRenameBodySchema,
  passkeySchema,
} from './passkeys.js';
import { passwordChangeRequestSchema, passwordChangeResponseSchema } from './password.js';
import { isFederatedResponseSchema, profileUpdateResponseSchema, profileUpdateSchema } from './profile.js';
import {
  RECOVERY_CODE_STEP_UP_SEGMENT,
  recoveryCodesGeneratedSchema,
  recoveryCodesStatusSchema,
  recoveryCodeVerifyBodySchema,
} from './recovery-codes.js';
import {
  canaryBodySchema,
  promoteBodySchema,
  publishBodySchema,
  releaseParamsSchema,
  releaseStatusSchema,
  remoteLoadReportSchema,
} from './releases.js';
import { accountSessionListSchema, sessionParamsSchema, signedOutEverywhereSchema } from './sessions.js';
import { settingsSchema } from './settings.js';
import { SETTINGS_PATH } from './settings-path.js';
import {
  challengeResponseSchema,
  reauthenticateBodySchema,
  sendChallengeResponseSchema,
  stepUpVerifyBodySchema,
  stepUpVerifyResponseSchema,
} from './stepup.js';

// opt-in, opt-out and enroll carry no payload in the spec; an empty JSON object is accepted too.
const noBody = z.object({}).nullish();

/** What each factor's enroll answers: a secret to scan, or a code sent (one entry per factor name). */
const ENROLL_RESPONSE_SCHEMAS = {
  googleAuth: googleEnrollResponseSchema,
  email: emailEnrollResponseSchema,
} as const satisfies Record<FactorName, z.ZodType>;

/** The 2-step factor calls of one factor: /api/multifactor/{googleauth|email}/:sub/… (spec section 7). */
function multifactorCallsOf<const F extends FactorName>(factor: F) {
  const base = `/api/multifactor/${MULTIFACTOR_PATH_SEGMENTS[factor]}/:sub` as const;
  // Every call needs this session's step-up grant once the user has an active factor.
  const guarded = ['federatedUser', 'stepUpRequired'] as const;
  return {
    enroll: defineCall({
      method: 'POST',
      path: `${base}/enroll`,
      params: subParamsSchema,
      body: noBody,
      response: ENROLL_RESPONSE_SCHEMAS[factor],
      errors: [
        ...guarded,
        'reauthenticationRequired',
        'factorState',
        'rateLimited',
        'upstreamFailed',
        'serviceUnavailable',
      ],
    }),
    details: defineCall({
      method: 'GET',
      path: `${base}/details`,
      params: subParamsSchema,
      response: factorDetailsResponseSchema,
      errors: guarded,
    }),
    activate: defineCall({
      method: 'POST',
      path: `${base}/activate`,
      params: subParamsSchema,
      body: activateBodySchema,
      response: factorStatusResponseSchema,
      errors: [...guarded, 'reauthenticationRequired', 'invalidCode', 'factorState', 'serviceUnavailable'],
    }),
    optIn: defineCall({
      method: 'PUT',
      path: `${base}/opt-in`,
      params: subParamsSchema,
      body: noBody,
      response: factorStatusResponseSchema,
      errors: [...guarded, 'reauthenticationRequired', 'factorState'],
    }),
    optOut: defineCall({
      method: 'DELETE',
      path: `${base}/opt-out`,
      params: subParamsSchema,
      body: noBody,
      response: factorStatusResponseSchema,
      errors: [...guarded, 'factorState', 'lastFactor'],
    }),
    reset: defineCall({
      method: 'DELETE',
      path: `${base}/reset`,
      params: subParamsSchema,
      body: resetBodySchema,
      response: factorStatusResponseSchema,
      errors: [...guarded, 'factorState', 'lastFactor'],
    }),
  };
}

export type MultifactorAction = keyof ReturnType<typeof multifactorCallsOf>;

/**
 * The spec's calls (section 7), and "Confirm it's you" (reauthenticate). The server registers exactly these routes
 * under /api (server/test/contract-routes.test.ts fails on any other); the browser calls them through
 * `apiCallers`.
 */
export const apiCalls = {
  settings: defineCall({
    method: 'GET',
    path: SETTINGS_PATH,
    response: settingsSchema,
    public: true,
    errors: [],
  }),
  isFederated: defineCall({
    method: 'GET',
    path: '/api/profile/:sub/isfederated',
    params: subParamsSchema,
    response: isFederatedResponseSchema,
    errors: [],
  }),
  profileUpdate: defineCall({
    method: 'PUT',
    path: '/api/profile/:sub/update',
    params: subParamsSchema,
    body: profileUpdateSchema,
    response: profileUpdateResponseSchema,
    okMeansDone: true,
    errors: ['federatedUser', 'notFound'],
  }),
  passwordChange: defineCall({
    method: 'PUT',
    path: '/api/password/:sub/change',
    params: subParamsSchema,
    body: passwordChangeRequestSchema,
    response: passwordChangeResponseSchema,
    // The spec's client parses the answer to an object; a 200 means the password changed, whatever its body.
    okMeansDone: true,
    errors: [
      'federatedUser',
      'stepUpRequired',
      'passwordPolicy',
      'wrongPassword',
      'rateLimited',
      'notFound',
      'noLocalPassword',
      'concurrentChange',
    ],
  }),
  stepUpChallenge: defineCall({
    method: 'GET',
    path: '/api/stepup/:sub/challenge',
    params: subParamsSchema,
    response: challengeResponseSchema,
    errors: ['federatedUser'],
  }),
  stepUpSendChallenge: defineCall({
    method: 'POST',
    path: '/api/stepup/:sub/:factor/challenge',
    // Only email has a code to send.
    params: subParamsSchema.extend({ factor: z.enum([STEP_UP_PATH_SEGMENTS.email]) }),
    body: noBody,
    response: sendChallengeResponseSchema,
    okMeansDone: true,
    errors: ['federatedUser', 'factorState', 'rateLimited', 'upstreamFailed', 'serviceUnavailable'],
  }),
  stepUpVerify: defineCall({
    method: 'POST',
    path: '/api/stepup/:sub/:factor/verify',
    params: subParamsSchema.extend({
      factor: z.enum([STEP_UP_PATH_SEGMENTS.googleAuth, STEP_UP_PATH_SEGMENTS.email]),
    }),
    body: stepUpVerifyBodySchema,
    response: stepUpVerifyResponseSchema,
    okMeansDone: true,
    errors: ['federatedUser', 'invalidCode', 'factorState', 'rateLimited', 'serviceUnavailable'],
  }),
  stepUpVerifyRecoveryCode: defineCall({
    method: 'POST',
    path: `/api/stepup/:sub/${RECOVERY_CODE_STEP_UP_SEGMENT}/verify`,
    params: subParamsSchema,
    body: recoveryCodeVerifyBodySchema,
    response: stepUpVerifyResponseSchema,
    okMeansDone: true,
    errors: ['federatedUser', 'invalidCode', 'rateLimited', 'recoveryCodesUnavailable'],
  }),
  recoveryCodesStatus: defineCall({
    method: 'GET',
    path: '/api/recoverycodes/:sub',
    params: subParamsSchema,
    response: recoveryCodesStatusSchema,
    errors: ['federatedUser'],
  }),
  recoveryCodesGenerate: defineCall({
    method: 'POST',
    path: '/api/recoverycodes/:sub/generate',
    params: subParamsSchema,
    body: noBody,
    response: recoveryCodesGeneratedSchema,
    errors: ['federatedUser', 'stepUpRequired', 'noActiveFactor', 'recoveryCodesUnavailable'],
  }),
  stepUpPasskeyOptions: defineCall({
    method: 'POST',
    path: `/api/stepup/:sub/${PASSKEY_STEP_UP_SEGMENT}/options`,
    params: subParamsSchema,
    body: noBody,
    response: passkeyAuthenticationOptionsSchema,
    errors: ['federatedUser', 'factorState', 'rateLimited', 'passkeysUnavailable'],
  }),
  stepUpVerifyPasskey: defineCall({
    method: 'POST',
    path: `/api/stepup/:sub/${PASSKEY_STEP_UP_SEGMENT}/verify`,
    params: subParamsSchema,
    body: passkeyAuthenticationBodySchema,
    response: stepUpVerifyResponseSchema,
    okMeansDone: true,
    errors: ['federatedUser', 'passkeyRefused', 'factorState', 'rateLimited', 'passkeysUnavailable'],
  }),
  passkeys: defineCall({
    method: 'GET',
    path: '/api/passkeys/:sub',
    params: subParamsSchema,
    response: passkeyListSchema,
    errors: ['federatedUser'],
  }),
  passkeyRegistrationOptions: defineCall({
    method: 'POST',
    path: '/api/passkeys/:sub/registration/options',
    params: subParamsSchema,
    body: noBody,
    response: passkeyRegistrationOptionsSchema,
    // factorState: the account holds PASSKEYS_MAX passkeys already. passkeysUnavailable (Okta mode): enrolment is
    // Okta's hosted page, or the org refuses the enrolment or names another RP ID than the portal's.
    errors: [
      'federatedUser',
      'stepUpRequired',
      'reauthenticationRequired',
      'factorState',
      'passkeysUnavailable',
    ],
  }),
  passkeyRegistrationVerify: defineCall({
    method: 'POST',
    path: '/api/passkeys/:sub/registration/verify',
    params: subParamsSchema,
    body: passkeyRegistrationBodySchema,
    response: passkeySchema,
    errors: [
      'federatedUser',
      'stepUpRequired',
      'reauthenticationRequired',
      'passkeyRefused',
      'factorState',
      'passkeysUnavailable',
    ],
  }),
  passkeyRename: defineCall({
    method: 'PUT',
    path: '/api/passkeys/:sub/:id/name',
    params: passkeyParamsSchema,
    body: passkeyRenameBodySchema,
    response: passkeySchema,
    // passkeysUnavailable: Okta mode, whose API renames no passkey (the list says canRename: false).
    errors: ['federatedUser', 'notFound', 'passkeysUnavailable'],
  }),
  passkeyRemove: defineCall({
    method: 'DELETE',
    path: '/api/passkeys/:sub/:id',
    params: passkeyParamsSchema,
    body: noBody,
    response: passkeyListSchema,
    errors: ['federatedUser', 'stepUpRequired', 'notFound', 'lastFactor', 'passkeysUnavailable'],
  }),
  activity: defineCall({
    method: 'GET',
    path: '/api/v1/users/:sub/activity',
    params: subParamsSchema,
    query: activityQuerySchema,
    response: activityPageSchema,
    errors: ['federatedUser', 'activityUnavailable'],
  }),
  activityNotMe: defineCall({
    method: 'POST',
    path: '/api/v1/users/:sub/activity/not-me',
    params: subParamsSchema,
    body: activityNotMeBodySchema,
    response: signedOutEverywhereSchema,
    // notFound: no event of the caller's has this id (another account's answers the same).
    errors: ['federatedUser', 'notFound', 'upstreamFailed', 'serviceUnavailable'],
  }),
  sessions: defineCall({
    method: 'GET',
    path: '/api/v1/users/:sub/sessions',
    params: subParamsSchema,
    response: accountSessionListSchema,
    errors: ['federatedUser', 'sessionsUnavailable'],
  }),
  sessionSignOut: defineCall({
    method: 'DELETE',
    path: '/api/v1/users/:sub/sessions/:id',
    params: sessionParamsSchema,
    body: noBody,
    response: accountSessionListSchema,
    // notFound: no live session of the caller's has this id (another account's answers the same).
    errors: ['federatedUser', 'stepUpRequired', 'notFound', 'currentSession', 'sessionsUnavailable'],
  }),
  sessionsSignOutOthers: defineCall({
    method: 'POST',
    path: '/api/v1/users/:sub/sessions/sign-out-others',
    params: subParamsSchema,
    body: noBody,
    response: accountSessionListSchema,
    errors: ['federatedUser', 'stepUpRequired', 'sessionsUnavailable'],
  }),
  sessionsSignOutEverywhere: defineCall({
    method: 'POST',
    path: '/api/v1/users/:sub/sessions/sign-out-everywhere',
    params: subParamsSchema,
    body: noBody,
    response: signedOutEverywhereSchema,
    errors: ['federatedUser', 'stepUpRequired', 'upstreamFailed', 'serviceUnavailable'],
  }),
  reauthenticate: defineCall({
    method: 'POST',
    path: '/api/stepup/:sub/reauthenticate',
    params: subParamsSchema,
    body: reauthenticateBodySchema,
    response: stepUpVerifyResponseSchema,
    errors: [
      'federatedUser',
      'wrongPassword',
      'rateLimited',
      'notFound',
      'noLocalPassword',
      'hasActiveFactor',
    ],
  }),
  // Issue 22: "Use by default" on an active 2-step method (under step-up, as every factor change).
  preferredMethod: defineCall({
    method: 'PUT',
    path: '/api/v1/users/:sub/multifactor/preferred',
    params: subParamsSchema,
    body: preferredMethodBodySchema,
    response: preferredMethodResponseSchema,
    // factorState: the method is not active on the account.
    errors: ['federatedUser', 'stepUpRequired', 'factorState'],
  }),
  multifactor: {
    googleAuth: multifactorCallsOf('googleAuth'),
    email: multifactorCallsOf('email'),
  },
} as const;

/** A remote team's release call: deploy key, not bearer (`public` here means no bearer token; see releases.ts). */
const deployKeyErrors = ['invalidDeployKey', 'forbiddenRemote'] as const;

/**
 * Issue 23: the release API, called by `pnpm release` with `Authorization: Deploy <key>`, and the shell's load
 * reports (no auth: anonymous pages report too). Not among apiCallers: no page of the portal calls them. The release
 * calls answer plain JSON (not the spec's JSON text); publish answers 201.
 */
export const releaseCalls = {
  publish: defineCall({
    method: 'POST',
    path: '/api/v1/releases/:remote/versions',
    params: releaseParamsSchema,
    body: publishBodySchema,
    response: releaseStatusSchema,
    public: true,
    errors: [...deployKeyErrors, 'versionExists'],
  }),
  canary: defineCall({
    method: 'POST',
    path: '/api/v1/releases/:remote/canary',
    params: releaseParamsSchema,
    body: canaryBodySchema,
    response: releaseStatusSchema,
    public: true,
    // notFound: the version is not published; conflict: it is the stable version already.
    errors: [...deployKeyErrors, 'notFound', 'conflict'],
  }),
  promote: defineCall({
    method: 'POST',
    path: '/api/v1/releases/:remote/promote',
    params: releaseParamsSchema,
    body: promoteBodySchema,
    response: releaseStatusSchema,
    public: true,
    errors: [...deployKeyErrors, 'notFound'],
  }),
  rollback: defineCall({
    method: 'POST',
    path: '/api/v1/releases/:remote/rollback',
    params: releaseParamsSchema,
    body: noBody,
    response: releaseStatusSchema,
    public: true,
    errors: [...deployKeyErrors, 'nothingToRollBack'],
  }),
  status: defineCall({
    method: 'GET',
    path: '/api/v1/releases/:remote',
    params: releaseParamsSchema,
    response: releaseStatusSchema,
    public: true,
    errors: deployKeyErrors,
  }),
  /**
   * Answers 204 with no body. Anonymous pages report too (public); a holder's page sends its bearer token, which is
   * then checked as on any signed-in call (so its refusals), and only such a report votes on a canary's rollback.
   */
  remoteLoadReport: defineCall({
    method: 'POST',
    path: '/api/v1/remote-loads',
    body: remoteLoadReportSchema,
    response: z.undefined(),
    public: true,
    okMeansDone: true,
    errors: ['unauthorized', 'upstreamFailed', 'serviceUnavailable'],
  }),
} as const;

/** Every declared call, once. */
export const ALL_API_CALLS: readonly ApiCall[] = [
  ...Object.values(apiCalls).flatMap((value: ApiCall | object) =>
    'method' in value ? [value as ApiCall] : [],
  ),
  ...Object.values(releaseCalls),
  ...FACTOR_NAMES.flatMap((factor) => Object.values(apiCalls.multifactor[factor])),
];
