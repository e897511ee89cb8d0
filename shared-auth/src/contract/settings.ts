import { z } from 'zod';

const linkMap = z.record(z.string().min(1), z.string().min(1));

/** Deployments may write the link maps either as JSON objects or as JSON text, as the spec's settings do. */
const jsonOrValue = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' ? JSON.parse(value) : value), schema);

export const footerLinksSchema = z.object({
  sections: z.record(z.string().min(1), linkMap).default({}),
  policies: linkMap.default({}),
});

export const settingsSchema = z.object({
  /** Origin of the identity provider; the issuer is `${Domain}/oauth2/default`. */
  Domain: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')),
  ClientId: z.string().min(1),
  HeaderLinks: jsonOrValue(linkMap).default({}),
  FooterLinks: jsonOrValue(footerLinksSchema).default({ sections: {}, policies: {} }),
  /** Social links of the footer, label to link. */
  SocialLinks: jsonOrValue(linkMap).default({}),
  /** Base URL of the flag images (`{FlagBaseUrl}/{code}.svg`, lower-case code). */
  FlagBaseUrl: z.string().min(1).default('/flags/4x3'),
  /**
   * Whose data the account's sessions and events are, set by the server from its mode: 'portal' (the embedded
   * provider's own) or 'org' (the Okta org's). Absent (an older server): 'portal'.
   */
  AccountDataFrom: z.enum(['portal', 'org']).default('portal'),
});

export type Settings = z.infer<typeof settingsSchema>;
export type FooterLinks = z.infer<typeof footerLinksSchema>;

export const ISSUER_PATH = '/oauth2/default';

export function issuerOf(settings: Pick<Settings, 'Domain'>): string {
  return `${settings.Domain}${ISSUER_PATH}`;
}
