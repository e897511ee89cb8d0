/** The `Server-Timing` value of an answer that reached argon2 (ms), so its cost shows in the browser's tools. */
export function serverTiming(verifyMs: number | undefined, hashMs?: number): string {
  return [
    verifyMs === undefined ? undefined : `argon2-verify;dur=${verifyMs.toFixed(1)}`,
    hashMs === undefined ? undefined : `argon2-hash;dur=${hashMs.toFixed(1)}`,
  ]
    .filter(Boolean)
    .join(', ');
}
