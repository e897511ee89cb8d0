import { pathOf } from './call.js';
import { apiCalls, type MultifactorAction } from './calls.js';
import {
  FACTOR_OF_MULTIFACTOR_SEGMENT,
  type MultifactorPathSegment,
  type StepUpPathSegment,
} from './factors.js';

const MULTIFACTOR_ACTIONS = {
  enroll: 'enroll',
  details: 'details',
  activate: 'activate',
  'opt-in': 'optIn',
  'opt-out': 'optOut',
  reset: 'reset',
} as const satisfies Record<string, MultifactorAction>;

/** Paths of the spec's calls (section 7), relative to the API base URL, built from their declarations. */
export const apiPaths = {
  settings: () => pathOf(apiCalls.settings.path),
  profileUpdate: (sub: string) => pathOf(apiCalls.profileUpdate.path, { sub }),
  isFederated: (sub: string) => pathOf(apiCalls.isFederated.path, { sub }),
  passwordChange: (sub: string) => pathOf(apiCalls.passwordChange.path, { sub }),
  stepUpChallenge: (sub: string) => pathOf(apiCalls.stepUpChallenge.path, { sub }),
  stepUpSendChallenge: (sub: string, factor: 'email') =>
    pathOf(apiCalls.stepUpSendChallenge.path, { sub, factor }),
  stepUpVerify: (sub: string, factor: StepUpPathSegment) =>
    pathOf(apiCalls.stepUpVerify.path, { sub, factor }),
  reauthenticate: (sub: string) => pathOf(apiCalls.reauthenticate.path, { sub }),
  multifactor: (factor: MultifactorPathSegment, sub: string, action: keyof typeof MULTIFACTOR_ACTIONS) =>
    pathOf(apiCalls.multifactor[FACTOR_OF_MULTIFACTOR_SEGMENT[factor]][MULTIFACTOR_ACTIONS[action]].path, {
      sub,
    }),
} as const;
