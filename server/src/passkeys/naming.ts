/**
 * A new passkey's default name, so the holder can tell several apart before renaming any: its provider's name
 * when the AAGUID is a known one, else the browser and system that registered it ("Chrome on Linux"), else
 * "Passkey". Never the User-Agent's own text: only names the parser knows (notifications/browser.ts).
 */
import { PASSKEY_NAME_MAX } from 'shared-auth/contract';
import { describeBrowser } from '../notifications/browser.js';
import { AAGUID_NAMES } from './aaguid-names.js';

export const FALLBACK_PASSKEY_NAME = 'Passkey';

export function defaultPasskeyName(aaguid: string, userAgent: string | undefined): string {
  const known = AAGUID_NAMES.get(aaguid.toLowerCase());
  if (known) return known;
  const browser = describeBrowser(userAgent);
  // Only "<Browser> on <OS>": a browser alone, or a system alone, does not tell two passkeys apart.
  if (/^[^ ].* on .+$/.test(browser) && !browser.startsWith('a browser on ')) {
    return browser.slice(0, PASSKEY_NAME_MAX);
  }
  return FALLBACK_PASSKEY_NAME;
}
