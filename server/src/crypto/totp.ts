/** RFC 6238 time-based codes (authenticator apps): secrets, the otpauth:// URI, and the check of a code. */
import { Secret, TOTP } from 'otpauth';
import { normaliseCode } from './code.js';

/** RFC 6238 as authenticator apps implement it: SHA-1, 6 digits, 30 s steps. */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Codes of the previous and next step are accepted too (clock drift, typing time). */
export const TOTP_WINDOW = 1;
/** The name the app shows above the code. */
export const TOTP_ISSUER = 'F5 Account';

/** A new 160-bit secret (RFC 4226's recommended length), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label = 'account'): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The otpauth:// URI the QR code carries (Key Uri Format). */
export function totpUri(secret: string, email: string): string {
  return totpOf(secret, email).toString();
}

/** The time step of a moment (ms since the epoch). */
export function timeStepOf(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);
}

export type TotpCheck = { ok: true; step: number } | { ok: false; reason: 'invalid' | 'replay' };

/**
 * Checks a code at `nowMs`. A code is accepted for one step only: a step at or before `lastStep` (the last one
 * accepted for this user) is a replay and refused, even inside the window.
 */
export function checkTotp(secret: string, code: string, nowMs: number, lastStep: number | null): TotpCheck {
  const token = normaliseCode(code, TOTP_DIGITS);
  if (token === undefined) return { ok: false, reason: 'invalid' };
  const delta = totpOf(secret).validate({ token, timestamp: nowMs, window: TOTP_WINDOW });
  if (delta === null) return { ok: false, reason: 'invalid' };
  const step = timeStepOf(nowMs) + delta;
  if (lastStep !== null && step <= lastStep) return { ok: false, reason: 'replay' };
  return { ok: true, step };
}

/** The code of a moment; for tests and the e2e suite's own checks (they use another library too). */
export function totpCodeAt(secret: string, nowMs: number): string {
  return totpOf(secret).generate({ timestamp: nowMs });
}
