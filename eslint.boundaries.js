// The import boundaries of docs/architecture.md, as one ESLint rule. It resolves each import specifier by path
// arithmetic alone (no module resolver): a resolver would silently skip what it cannot resolve, such as an
// undeclared workspace package or a '.js' specifier that names a '.ts' file, which are the imports to catch.
import path from 'node:path';

const ROOT = import.meta.dirname;

/** The independent deployables: only the shell knows they exist, and it loads them at run time by name. */
export const REMOTES = ['remote-profile', 'remote-password', 'remote-security', 'remote-activity'];
/** Packages the shell and the remotes build on; they never import a remote or the shell. */
export const SHARED = [
  'shared-auth',
  'shared-ui',
  'shared-router',
  'shared-stepup',
  'mount-runtime',
  'remote-harness',
];
const BROWSER = new Set(['shell', ...REMOTES, ...SHARED]);
const WORKSPACE = new Set([...BROWSER, 'server', 'e2e', 'bench', 'examples']);
/** Server folders that hold domain code: routes call them, never the other way round. */
const SERVER_DOMAINS = [
  'directory',
  'factors',
  'passkeys',
  'identity',
  'password',
  'mail',
  'notifications',
  'oidc',
  'auth',
  'storage',
  'throttles',
  'clients',
  'activity',
  'devices',
  'releases',
];

/**
 * The server's layers, bottom to top (docs/architecture.md draws them): a folder of server/src imports its own
 * files and folders of lower layers only, never a higher layer nor another folder of its own layer, so the
 * folders form no cycle. '.' stands for the files directly in server/src: the app and the programs (server.ts,
 * directory-cli.ts), which compose every layer.
 */
export const SERVER_LAYERS = [
  ['config'],
  ['crypto', 'http', 'clients'],
  ['db'],
  ['storage'],
  ['mail', 'throttles', 'directory', 'keys'],
  ['notifications', 'identity', 'activity', 'releases'],
  ['auth'],
  ['factors'],
  ['passkeys', 'devices'],
  ['oidc'],
  ['password'],
  ['plugins', 'routes'],
  ['static-host', '.'],
];

/** Where a repo-relative path sits: its package and, inside src/, its top folder and feature. */
function locate(repoPath) {
  const [pkg = '', ...rest] = repoPath.split('/');
  const inPackage = rest.join('/');
  const feature = /^src\/features\/([^/]+)/.exec(inPackage)?.[1];
  const top = /^src\/([^/]+)\//.exec(`${inPackage}/`)?.[1];
  return { pkg, inPackage, feature, top };
}

/** The repo-relative path (or the bare workspace package) an import names, or undefined if it is external. */
function target(importerPath, specifier) {
  if (specifier.startsWith('.')) {
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(importerPath), specifier));
    return resolved.startsWith('..') ? undefined : { ...locate(resolved), byName: false };
  }
  const first = specifier.split('/')[0] ?? '';
  // A remote is also named by its Module Federation container (remote_profile/ProfilePage).
  const name = REMOTES.find((remote) => remote.replace('-', '_') === first) ?? first;
  return WORKSPACE.has(name) ? { ...locate(name), byName: true } : undefined;
}

/** The layer (0 = the bottom) and folder of a file inside server/src; the layer is undefined for an unlisted folder. */
function serverPlace(inPackage) {
  const inSrc = inPackage.slice('src/'.length);
  const folder = /^([^/]+)\//.exec(inSrc)?.[1] ?? '.';
  const layer = SERVER_LAYERS.findIndex((folders) => folders.includes(folder));
  return { folder, layer: layer === -1 ? undefined : layer };
}

/** How a message names a server folder and its layer. */
function describePlace({ folder, layer }) {
  const name = folder === '.' ? 'src/*.ts' : `src/${folder}`;
  return layer === undefined
    ? `${name} (in no layer)`
    : `${name} (layer ${layer + 1}: ${SERVER_LAYERS[layer].join(', ')})`;
}

/** Why this import inside server/src breaks the layer order, or undefined when it goes down (or stays home). */
function serverLayerViolation(from, to) {
  const importer = serverPlace(from.inPackage);
  const imported = serverPlace(to.inPackage);
  if (importer.folder === imported.folder) return undefined;
  const both = `${describePlace(importer)} imports ${describePlace(imported)}`;
  if (importer.layer === undefined || imported.layer === undefined) {
    return `${both}: add the folder to SERVER_LAYERS (eslint.boundaries.js) at its place in the server's layers`;
  }
  if (imported.layer > importer.layer) return `${both}: a lower layer never imports a higher one`;
  if (imported.layer === importer.layer) return `${both}: folders of one layer do not import each other`;
  return undefined;
}

/** Why importing `to` from `from` crosses a boundary, or undefined when it does not. */
function violation(from, to) {
  if (from.pkg === to.pkg && !to.byName) {
    if (from.feature !== undefined && to.feature !== undefined && to.feature !== from.feature) {
      return `feature '${from.feature}' imports feature '${to.feature}': features do not import each other (share through src/lib, src/components, src/config or a shared package)`;
    }
    if (from.feature !== undefined && (to.top === 'app' || to.top === 'exposes')) {
      return `feature '${from.feature}' imports src/${to.top}: the app and the exposed entries compose features, not the reverse`;
    }
    if (from.pkg === 'server' && SERVER_DOMAINS.includes(from.top ?? '') && to.top === 'routes') {
      return `server domain code (src/${from.top}) imports src/routes: routes call the domain, not the reverse`;
    }
    if (from.pkg === 'server' && from.inPackage.startsWith('src/') && to.inPackage.startsWith('src/')) {
      return serverLayerViolation(from, to);
    }
    return undefined;
  }
  if (from.pkg === to.pkg) return undefined;
  if (REMOTES.includes(to.pkg)) {
    if (REMOTES.includes(from.pkg))
      return `remote ${from.pkg} imports remote ${to.pkg}: remotes are independent`;
    if (from.pkg === 'shell') {
      return `the shell imports ${to.pkg}: it loads remotes at run time by name (Module Federation), never their code`;
    }
    if (SHARED.includes(from.pkg)) return `shared package ${from.pkg} imports remote ${to.pkg}`;
  }
  if (to.pkg === 'shell' && (REMOTES.includes(from.pkg) || SHARED.includes(from.pkg))) {
    return `${from.pkg} imports the shell: nothing depends on the shell`;
  }
  if (to.pkg === 'server' && BROWSER.has(from.pkg)) {
    return `${from.pkg} imports the server: browser code shares only the contract (shared-auth/contract)`;
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const imports = {
  meta: {
    type: 'problem',
    docs: {
      description: "Keeps the package and feature boundaries and the server's layers of docs/architecture.md",
    },
    schema: [
      {
        type: 'object',
        properties: {
          // Named exceptions: an importer (repo-relative file) may import one target path, with the reason.
          allow: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                importer: { type: 'string' },
                target: { type: 'string' },
                why: { type: 'string' },
              },
              required: ['importer', 'target', 'why'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: { crossing: 'Import boundary: {{why}} (docs/architecture.md).' },
  },
  create(context) {
    const importerPath = path.relative(ROOT, context.filename).split(path.sep).join('/');
    if (importerPath.startsWith('..')) return {};
    const from = locate(importerPath);
    const allowed = (context.options[0]?.allow ?? []).filter((entry) => entry.importer === importerPath);

    function check(node) {
      const specifier =
        node?.type === 'TemplateLiteral' && node.expressions.length === 0
          ? node.quasis[0]?.value.cooked
          : node?.type === 'Literal'
            ? node.value
            : undefined;
      if (typeof specifier !== 'string') return;
      const to = target(importerPath, specifier);
      if (to === undefined) return;
      const why = violation(from, to);
      if (why === undefined) return;
      const resolved = `${to.pkg}/${to.inPackage}`.replace(/\/$/, '');
      if (allowed.some((entry) => resolved.startsWith(entry.target.replace(/\.[cm]?[jt]sx?$/, '')))) return;
      context.report({ node, messageId: 'crossing', data: { why } });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSExternalModuleReference: (node) => check(node.expression),
      'CallExpression[callee.name="require"]': (node) => check(node.arguments[0]),
      // A mocked module is a dependency of the test too.
      'CallExpression[callee.property.name="mock"][callee.object.name=/^(jest|vi)$/]': (node) =>
        check(node.arguments[0]),
    };
  },
};

export default { rules: { imports } };
