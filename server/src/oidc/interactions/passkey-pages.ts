/**
 * The passkey parts of the sign-in pages: the button (hidden until the page script finds WebAuthn, so a page
 * without JavaScript works as before), the hidden field the script fills with the browser's answer, the form's
 * data (where to ask for options, the texts the script shows) and the script tags (same-origin files:
 * passkey-assets.ts). The server renders every text; the script only picks one.
 */
import { PASSKEY_ANSWER_ERROR } from '../../passkeys/texts.js';
import { escapeHtml } from '../html.js';

/** The second step's button. */
export const USE_PASSKEY = 'Use a passkey';
/** The sign-in page's button (passwordless). */
export const SIGN_IN_WITH_PASSKEY = 'Sign in with a passkey';
/** The browser's dialog was closed, or its time ran out. */
export const PASSKEY_CANCELLED = 'The passkey check was cancelled or timed out. Try again.';
/** The answer was refused (a text of the passkeys' own). */
export const PASSKEY_REFUSED = PASSKEY_ANSWER_ERROR;
/** The second step of an account whose only 2-step method is a passkey. */
export const PASSKEY_ONLY_HINT = 'Use your passkey to finish signing in.';
/** The form field that carries the browser's answer (JSON). */
export const PASSKEY_RESPONSE_FIELD = 'passkeyResponse';
/** The form's `action` of a passkey's answer. */
export const PASSKEY_ACTION = 'passkey';

/** Where a page's passkey script asks for options, and the scripts it loads (library first). */
export interface PasskeyUi {
  optionsUrl: string;
  scripts: readonly string[];
}

/** The form element's data attributes; `autofill` asks the script for the browser's passkey autofill too. */
export function passkeyFormAttributes(ui: PasskeyUi, autofill: boolean): string {
  return ` data-passkey-options="${escapeHtml(ui.optionsUrl)}" data-passkey-cancelled="${escapeHtml(PASSKEY_CANCELLED)}" data-passkey-failed="${escapeHtml(PASSKEY_REFUSED)}"${autofill ? ' data-passkey-autofill="true"' : ''}`;
}

/**
 * The hidden answer field and the button, inside the form: a secondary button, or the page's main one where the
 * passkey leads (the holder's default method, issue 22).
 */
export function passkeyFormFields(label: string, look: 'primary' | 'secondary' = 'secondary'): string {
  return `<input type="hidden" name="${PASSKEY_RESPONSE_FIELD}" value="">
<button type="button" id="passkey-button"${look === 'secondary' ? ' class="secondary"' : ''} hidden>${escapeHtml(label)}</button>`;
}

/** The script tags and the style the button needs, for the page's head. */
export function passkeyHead(ui: PasskeyUi): string {
  return `${ui.scripts.map((src) => `<script defer src="${escapeHtml(src)}"></script>`).join('\n')}
<style>[hidden]{display:none!important}</style>`;
}
