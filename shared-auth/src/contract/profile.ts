import { z } from 'zod';
import { isCountryCode } from './countries.js';

// Letters, marks, spaces and the punctuation found in real names; control characters never.
const CONTROL_CHARACTERS = /\p{Cc}/u;
// Half of a UTF-16 surrogate pair is no character: stored as UTF-8 it would come back as U+FFFD.
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * Characters that show as nothing but change what a name looks like in mails and pages: every format character
 * (\p{Cf}: text-direction marks, embeddings, overrides and isolates U+202A–202E and U+2066–2069, zero-width
 * U+200B–200D, word joiner U+2060, byte order mark U+FEFF, soft hyphen, tags), line and paragraph separators, the
 * combining grapheme joiner and the Hangul and Khmer fillers that render blank. Letters of every script, combining
 * marks (accents, vowel signs), spaces, apostrophes and hyphens are untouched: right-to-left names need no marks.
 */
const INVISIBLE_CHARACTERS = /[\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]|\u034F|\u17B4|\u17B5/u;

const personName = (label: string) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .min(1, { error: `${label} must not be empty` })
    .max(50, { error: `${label} must be at most 50 characters` })
    .refine((value) => !CONTROL_CHARACTERS.test(value), {
      error: `${label} must not contain control characters`,
    })
    .refine((value) => !LONE_SURROGATE.test(value), {
      error: `${label} must not contain broken characters`,
    })
    // The page shows the server's message as it comes: plain words for the holder.
    .refine((value) => !INVISIBLE_CHARACTERS.test(value), {
      error: `${label} contains invisible characters, such as text-direction marks. Type your name again without them.`,
    });

export const profileUpdateSchema = z
  .strictObject(
    {
      firstName: personName('First name').optional(),
      lastName: personName('Last name').optional(),
      country: z
        .string({ error: 'Country must be a two-letter country code' })
        .refine(isCountryCode, { error: 'Country must be one of the listed countries' })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.includes('email')
            ? 'Email cannot be changed'
            : `Unknown field: ${issue.keys.join(', ')}`
          : 'The body must be a JSON object',
    },
  )
  .refine((body) => Object.keys(body).length > 0, { error: 'Nothing to update' });

export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

export const profileSchema = z.object({
  sub: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  country: z.string(),
});
export type Profile = z.infer<typeof profileSchema>;

/** The update answers with the stored profile, so the client can merge what the server kept. */
export const profileUpdateResponseSchema = profileSchema;

export const isFederatedResponseSchema = z.object({ isFederated: z.boolean() });
export type IsFederatedResponse = z.infer<typeof isFederatedResponseSchema>;
