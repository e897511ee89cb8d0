/**
 * The one reading of a typed verification code, for every factor kind and backend: spaces (a code is often shown
 * and typed in groups, "123 456") are dropped, and what is left must be digits of an accepted length.
 */

/** The code without spaces, or undefined when it cannot be a code of `digits` digits (or `[min, max]`). */
export function normaliseCode(code: string, digits: number | readonly [number, number]): string | undefined {
  const [min, max] = typeof digits === 'number' ? [digits, digits] : digits;
  const typed = code.replace(/\s+/g, '');
  return new RegExp(`^\\d{${min},${max}}$`).test(typed) ? typed : undefined;
}
