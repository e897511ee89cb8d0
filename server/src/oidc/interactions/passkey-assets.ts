/**
 * The sign-in pages' passkey scripts, served as files from the provider's own origin (its CSP's script-src 'self';
 * no inline script, no inline handler): @simplewebauthn/browser's own browser bundle (UMD, the global
 * `SimpleWebAuthnBrowser`), read once from node_modules, and the page script below, which reveals the passkey
 * button when the browser has WebAuthn, asks the server for the options, runs the ceremony and posts the answer in
 * the step's form. Both are named by their version or content hash and cached for a year.
 *
 * Paths have no dot: the provider's edge (oidc/edge.ts) lets through `/interaction/<segment>/<segment>` only.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The folder below the interaction path that holds the scripts. */
export const PASSKEY_ASSETS_SEGMENT = 'script';

/** The page script: plain JavaScript for every browser that has WebAuthn; texts come from the form's data. */
export const PASSKEY_PAGE_SCRIPT = `// Sign-in pages: passkeys (the second step, and passwordless sign-in with the button or the browser's autofill).
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  var form = document.querySelector('form[data-passkey-options]');
  if (!lib || !form || !lib.browserSupportsWebAuthn()) return;
  var button = document.getElementById('passkey-button');
  var texts = { cancelled: form.dataset.passkeyCancelled, failed: form.dataset.passkeyFailed };
  var busy = false;

  function show(message) {
    var box = document.getElementById('passkey-error');
    if (!box) {
      box = document.createElement('div');
      box.id = 'passkey-error';
      box.setAttribute('role', 'alert');
      form.parentNode.insertBefore(box, form);
    }
    box.textContent = message;
  }

  function options() {
    var body = new URLSearchParams({ csrf: form.elements.namedItem('csrf').value });
    return fetch(form.dataset.passkeyOptions, { method: 'POST', body: body, credentials: 'same-origin' }).then(
      function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          if (response.ok && data && data.options) return data.options;
          var error = new Error((data && data.error) || texts.failed);
          error.name = 'ServerRefusal';
          throw error;
        });
      },
    );
  }

  function send(answer) {
    form.elements.namedItem('passkeyResponse').value = JSON.stringify(answer);
    var action = document.createElement('input');
    action.type = 'hidden';
    action.name = 'action';
    action.value = 'passkey';
    form.appendChild(action);
    form.submit();
  }

  function run(autofill) {
    if (!autofill) busy = true;
    return options()
      .then(function (optionsJSON) {
        return lib.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: autofill });
      })
      .then(send, function (error) {
        var name = error && error.name;
        // The autofill is a silent offer the holder did not ask for: its end (the button started a ceremony of its
        // own, or a browser that announces the autofill cannot run it) says nothing.
        if (autofill) return;
        busy = false;
        if (name === 'ServerRefusal') return show(error.message);
        show(name === 'NotAllowedError' || name === 'AbortError' || name === 'TimeoutError' ? texts.cancelled : texts.failed);
      });
  }

  if (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      run(false);
    });
  }
  if (form.dataset.passkeyAutofill === 'true' && lib.browserSupportsWebAuthnAutofill) {
    lib.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (supported) run(true);
    });
  }
})();
`;

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

export interface PasskeyAssets {
  /** File name (one path segment) → its source. */
  files: Map<string, string>;
  /** The file names in the order the pages load them: the library first. */
  library: string;
  page: string;
}

let assets: Promise<PasskeyAssets> | undefined;

/** The scripts, read once. */
export function passkeyAssets(): Promise<PasskeyAssets> {
  assets ??= loadAssets();
  return assets;
}

async function loadAssets(): Promise<PasskeyAssets> {
  const root = browserPackageRoot();
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  const bundle = await readFile(path.join(root, 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
  const library = `simplewebauthn-browser-${version.replace(/[^A-Za-z0-9]/g, '-')}`;
  const page = `passkeys-${shortHash(PASSKEY_PAGE_SCRIPT)}`;
  return {
    files: new Map([
      [library, bundle],
      [page, PASSKEY_PAGE_SCRIPT],
    ]),
    library,
    page,
  };
}

/** The folder of @simplewebauthn/browser (a dependency of the server, pinned as shared-stepup pins it). */
function browserPackageRoot(): string {
  // The package exports only its entry (script/index.js): its folder is two levels up.
  return path.dirname(path.dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')));
}
