import { z } from 'zod';

/**
 * Machine codes some refusals carry beside the human `error` text, for answers the browser must react to
 * (rather than show): the page runs a flow and then retries the call.
 */
export const API_ERROR_CODES = {
  /** 403: verify with a 2-step factor first (the step-up screens), then retry. */
  stepUpRequired: 'step_up_required',
  /** 403: turning on the first factor needs a recent sign-in or the password again ("Confirm it's you"). */
  reauthenticationRequired: 'reauthentication_required',
} as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[keyof typeof API_ERROR_CODES];

/** Every refusal of the API has this shape; the spec's clients read `error`. */
export const errorResponseSchema = z.object({ error: z.string(), code: z.string().optional() });
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
