/**
 * The browser, the operating system and the kind of device of a request, read from its User-Agent with bowser. Only
 * names bowser knows are kept: its fallback copies the header's first token, which the sender writes freely, and
 * an account's activity must not show a stranger's text.
 */
import { BROWSER_MAP, OS_MAP, parse } from 'bowser';
import type { DeviceType } from 'shared-auth/contract';

export interface UserAgentDescription {
  /** "Chrome", "Safari", …; null when bowser does not know it. */
  browser: string | null;
  /** "Linux", "iOS", …; null when bowser does not know it. */
  os: string | null;
  /** null for a kind the page does not name (a TV, a bot) or none. */
  deviceType: DeviceType | null;
}

const KNOWN_BROWSERS = new Set<string>(Object.values(BROWSER_MAP));
const KNOWN_SYSTEMS = new Set<string>(Object.values(OS_MAP));
const DEVICE_TYPES = new Set<string>(['desktop', 'mobile', 'tablet'] satisfies DeviceType[]);
/** A User-Agent is a few hundred characters; a longer one is not a browser's. */
export const MAX_USER_AGENT_LENGTH = 1024;

const UNKNOWN: UserAgentDescription = { browser: null, os: null, deviceType: null };

/** What a User-Agent header says of the browser, its system and device; every part null when unknown. */
export function describeUserAgent(userAgent: string | undefined): UserAgentDescription {
  if (!userAgent || userAgent.length > MAX_USER_AGENT_LENGTH) return UNKNOWN;
  try {
    const parsed = parse(userAgent);
    const browser = parsed.browser.name;
    const os = parsed.os.name;
    const type = parsed.platform.type;
    return {
      browser: browser && KNOWN_BROWSERS.has(browser) ? browser : null,
      os: os && KNOWN_SYSTEMS.has(os) ? os : null,
      deviceType: type && DEVICE_TYPES.has(type) ? (type as DeviceType) : null,
    };
  } catch {
    return UNKNOWN;
  }
}
