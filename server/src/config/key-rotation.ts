/**
 * The bounds of KEY_ROTATION_DAYS, the setting's own numbers: how far ahead a new provider key is published, the
 * default rotation period and the shortest one allowed. The key ring's schedule (keys/timeline.ts) reads them.
 */

/**
 * How many days a new key is published before any instance signs with it. The instances need only one refresh
 * (60 s) to load it; the rest is for relying parties that cache the JWKS (okta-auth-js for 24 h, others up to
 * a day; Okta itself publishes a new key weeks ahead): none of them meets a token under a kid it has not seen.
 */
export const KEY_LEAD_DAYS = 7;

/** Rotation every 90 days, Okta's cadence for its authorization servers (four times a year). 0 = never. */
export const DEFAULT_KEY_ROTATION_DAYS = 90;

/** A period shorter than twice the lead would have a key signing for less time than it was announced. */
export const MIN_KEY_ROTATION_DAYS = 2 * KEY_LEAD_DAYS;
