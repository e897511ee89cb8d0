import type { ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** A response as helmet writes to it: only its header calls matter here. */
type HeaderCalls = Pick<ServerResponse, 'setHeader' | 'removeHeader'>;

/** The headers helmet writes for these options, taken once by running it against a recording response. */
function headerSetOf(options: HelmetOptions): readonly (readonly [string, string])[] {
  const headers = new Map<string, string>();
  const recorder: HeaderCalls = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
      return this as ServerResponse;
    },
    removeHeader(name: string) {
      headers.delete(name);
    },
  };
  let failure: unknown;
  helmet(options)({} as never, recorder as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return [...headers];
}

/**
 * The security headers of every answer (helmet's, for the portal's options), computed once per version of what
 * they depend on, not on every request: helmet rebuilds the whole Content-Security-Policy text for each response,
 * which was the largest single cost of an API call after the token check. `versionOf` names the input that
 * changes them (the remotes file, whose origins the CSP lists); a new version computes the set again.
 */
export function precomputedSecurityHeaders(
  optionsOf: () => HelmetOptions,
  versionOf: () => object,
): (response: ServerResponse) => void {
  // Refuses bad options at start-up, as helmet does; the set itself is taken at the first answer, so reading
  // the remotes file follows the answers' rhythm.
  helmet(optionsOf());
  let version: object | undefined;
  let headers: readonly (readonly [string, string])[] = [];
  return (response) => {
    const current = versionOf();
    if (current !== version) {
      version = current;
      headers = headerSetOf(optionsOf());
    }
    for (const [name, value] of headers) response.setHeader(name, value);
    response.removeHeader('X-Powered-By');
  };
}
