import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { KeyRing } from '../keys/ring.js';

/**
 * The provider of the current keys. oidc-provider reads its `jwks` and cookie keys once, when it is built, so a
 * change of the key ring (a key announced, taking over or retired) builds a new one; requests under way finish on
 * the one they started on, the next ones reach the new one. Everything that serves the provider (the middie handler,
 * the sign-in pages) reads `current` per request instead of keeping a provider.
 */
export interface ProviderHolder {
  readonly current: Provider;
  /** The current provider's request handler (Koa's: settles when the answer is sent). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Stops following the ring. */
  close(): void;
}

/** Builds the provider now and again after every change of `ring`. */
export function providerHolder(build: () => Provider, ring: KeyRing): ProviderHolder {
  const make = () => {
    const provider = build();
    return { provider, handle: provider.callback() };
  };
  let current = make();
  const stop = ring.onChange(() => {
    current = make();
  });
  return {
    get current() {
      return current.provider;
    },
    handle(req, res) {
      return current.handle(req, res);
    },
    close: stop,
  };
}
