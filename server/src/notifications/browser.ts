import { BROWSER_MAP, OS_MAP, parse } from 'bowser';

export const UNKNOWN_BROWSER = 'an unknown browser';

// Only names bowser knows: its fallback copies the User-Agent's first token, which the sender writes freely
// (e.g. "Visit evil.example to unlock/1.0"), and the notice must not carry a stranger's text.
const KNOWN_BROWSERS = new Set<string>(Object.values(BROWSER_MAP));
const KNOWN_SYSTEMS = new Set<string>(Object.values(OS_MAP));
// A User-Agent is a few hundred characters; a longer one is not a browser's.
const MAX_USER_AGENT_LENGTH = 1024;

/** "Chrome on Linux", "Safari on iOS", "Firefox", or 'an unknown browser', from a User-Agent header. */
export function describeBrowser(userAgent: string | undefined): string {
  if (!userAgent || userAgent.length > MAX_USER_AGENT_LENGTH) return UNKNOWN_BROWSER;
  let browser: string | undefined;
  let system: string | undefined;
  try {
    const parsed = parse(userAgent);
    browser = parsed.browser.name;
    system = parsed.os.name;
  } catch {
    return UNKNOWN_BROWSER;
  }
  const name = browser && KNOWN_BROWSERS.has(browser) ? browser : undefined;
  const os = system && KNOWN_SYSTEMS.has(system) ? system : undefined;
  if (name && os) return `${name} on ${os}`;
  if (name) return name;
  if (os) return `a browser on ${os}`;
  return UNKNOWN_BROWSER;
}
