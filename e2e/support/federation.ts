import type { Page } from '@playwright/test';

export interface SharedVersion {
  version: string;
  /** The app that provided this version. */
  from: string;
  loaded: boolean;
  /** The apps that use it. */
  useIn: string[];
}

/** The Module Federation runtime's default share scope on the page: each shared package's registered versions. */
export function shareScopeOf(page: Page): Promise<Record<string, SharedVersion[]>> {
  return page.evaluate(() => {
    type Share = { from: string; loaded?: boolean; useIn: string[] };
    const federation = (
      globalThis as {
        __FEDERATION__?: {
          __INSTANCES__: { shareScopeMap: Record<string, Record<string, Record<string, Share>>> }[];
        };
      }
    ).__FEDERATION__;
    const scope = federation?.__INSTANCES__[0]?.shareScopeMap.default ?? {};
    return Object.fromEntries(
      Object.entries(scope).map(([name, versions]) => [
        name,
        Object.entries(versions).map(([version, { from, loaded, useIn }]) => ({
          version,
          from,
          loaded: loaded === true,
          useIn,
        })),
      ]),
    );
  });
}
