import { z } from 'zod';

/** Every refusal of the API has this shape; the spec's clients read `error`. */
export const errorResponseSchema = z.object({ error: z.string() });
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
