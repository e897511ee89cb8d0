// One webpack + Module Federation setup for the shell and every remote. Each app calls createWebpackConfig
// from its own webpack.config.js; plugins are resolved from that app's folder (pnpm gives each app its own
// node_modules, and resolving from here would only work by accident of hoisting).
import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Singletons every app shares. An app shares only those it depends on itself.
 * `shared-*` are workspace packages: give them a real version and range, or MF skips the check.
 */
const SINGLETONS = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  'shared-auth',
  'shared-ui',
  'shared-ui/forms',
  'shared-ui/menus',
  'shared-router',
];

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function dependenciesOf(appDir) {
  return readJson(path.join(appDir, 'package.json')).dependencies ?? {};
}

/** Libraries that import whole APIs the portal does not need get the portal's slim entry instead. */
function slimAliases(appDir, appRequire) {
  const dependencies = dependenciesOf(appDir);
  const aliases = {};
  // okta-react does `import * as ReactRouterDom from 'react-router-dom'`, which would keep all of the router.
  if ('shared-router' in dependencies) aliases['react-router-dom$'] = appRequire.resolve('shared-router');
  // The core build has OAuth, tokens and sessions: everything the shell uses, without IDX and MyAccount.
  if ('@okta/okta-auth-js' in dependencies) aliases['@okta/okta-auth-js$'] = '@okta/okta-auth-js/core';
  return aliases;
}

/**
 * The version an app declares for a shared package: the one it is built against. SHARED_AUTH_VERSION builds it
 * as if against another shared-auth release instead (its share metadata then says that version and requires
 * that major). Nothing but the e2e suite sets it: it proves that a remote built for another major of the portal's
 * contract is refused at run time (e2e/tests/delivery.spec.ts).
 */
function sharedVersionOf(packageName, appRequire) {
  if (packageName === 'shared-auth' && process.env.SHARED_AUTH_VERSION)
    return process.env.SHARED_AUTH_VERSION;
  return readJson(appRequire.resolve(`${packageName}/package.json`)).version;
}

function sharedConfig(appDir, appRequire) {
  const dependencies = dependenciesOf(appDir);
  const shared = {};
  for (const request of SINGLETONS) {
    const packageName = request.split('/')[0];
    if (!(packageName in dependencies)) continue;
    const version = sharedVersionOf(packageName, appRequire);
    shared[request] = {
      singleton: true,
      version,
      // At least the release the app was built against, within its major: a remote built against another major,
      // or against a newer minor (calls the portal's copy lacks), is refused, never silently duplicated or broken.
      requiredVersion: `^${version}`,
      strictVersion: packageName.startsWith('shared-'),
    };
  }
  return shared;
}

/** Packages whose modules have no side effects at import, though their package.json does not say so. */
const SIDE_EFFECT_FREE_PACKAGES =
  /[\\/]node_modules[\\/](@rc-component[\\/][^\\/]+|@ant-design[\\/](colors|cssinjs|cssinjs-utils|fast-color))[\\/]/;

/**
 * antd modules behind features the portal leaves out (shared-ui/src/AntdFeatureLeftOut.js says which), each where
 * `importedFrom` imports it: Typography's editing and tooltips, Modal's loading skeleton. They replace nothing
 * elsewhere: the forms' Tooltip (Form.Item's `tooltip`) is antd's own.
 */
const ANTD_LEFT_OUT = [
  {
    module: /[\\/]antd[\\/]es[\\/]typography[\\/]Editable\.js$/,
    importedFrom: /[\\/]antd[\\/]es[\\/]typography[\\/]/,
  },
  {
    module: /[\\/]antd[\\/]es[\\/]tooltip[\\/]index\.js$/,
    importedFrom: /[\\/]antd[\\/]es[\\/]typography[\\/]/,
  },
  { module: /[\\/]antd[\\/]es[\\/]skeleton[\\/]index\.js$/, importedFrom: /[\\/]antd[\\/]es[\\/]modal[\\/]/ },
];
const ANTD_FEATURE_LEFT_OUT = fileURLToPath(
  new URL('./shared-ui/src/AntdFeatureLeftOut.js', import.meta.url),
);

// webpack-subresource-integrity is the root's devDependency (one pinned copy for every app).
const rootRequire = createRequire(import.meta.url);
const SRI_HASHES = ['sha384'];

/**
 * Module Federation leaves chunks with no file (the shared modules another container provides): webpack's loader
 * never fetches them (they are marked installed), but webpack-subresource-integrity still writes a placeholder for
 * each into the loader's hash map and then fails the build on it (waysact/webpack-subresource-integrity#176).
 * Each such placeholder becomes a well-formed hash that matches nothing, of the same length (source maps stay
 * right), so a load of one would fail closed. Runs just before the integrity plugin hashes the files.
 */
class FilelessChunkIntegrityPlugin {
  apply(compiler) {
    const { Compilation, sources } = compiler.webpack;
    const { makePlaceholder } = rootRequire('webpack-subresource-integrity/util');
    compiler.hooks.thisCompilation.tap('FilelessChunkIntegrityPlugin', (compilation) => {
      compilation.hooks.processAssets.tap(
        {
          name: 'FilelessChunkIntegrityPlugin',
          stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_INLINE - 1,
        },
        (assets) => {
          const placeholders = [...compilation.chunks]
            .filter((chunk) => chunk.files.size === 0 && chunk.id !== null)
            .map((chunk) => makePlaceholder(SRI_HASHES, chunk.id));
          if (placeholders.length === 0) return;
          for (const [file, asset] of Object.entries(assets)) {
            if (!file.endsWith('.js')) continue;
            const text = asset.source().toString();
            const replaced = new sources.ReplaceSource(asset, file);
            let changed = false;
            for (const placeholder of placeholders) {
              const matchesNothing = `sha384-${'A'.repeat(placeholder.length - 'sha384-'.length)}`;
              for (let at = text.indexOf(placeholder); at >= 0; at = text.indexOf(placeholder, at + 1)) {
                replaced.replace(at, at + placeholder.length - 1, matchesNothing);
                changed = true;
              }
            }
            if (changed) compilation.updateAsset(file, replaced);
          }
        },
      );
    });
  }
}

/**
 * @param {{
 *   appDir: string,
 *   name: string,
 *   role: 'host' | 'remote',
 *   exposes?: Record<string, string>,
 *   devPort: number,
 *   title: string,
 * }} options
 */
export function createWebpackConfig({ appDir, name, role, exposes = {}, devPort, title }) {
  const appRequire = createRequire(path.join(appDir, 'package.json'));
  const webpack = appRequire('webpack');
  const HtmlWebpackPlugin = appRequire('html-webpack-plugin');
  const { ModuleFederationPlugin } = appRequire('@module-federation/enhanced/webpack');
  const TerserPlugin = appRequire('terser-webpack-plugin');
  const { SubresourceIntegrityPlugin } = rootRequire('webpack-subresource-integrity');
  const { version } = readJson(path.join(appDir, 'package.json'));
  const containerName = name.replace(/-/g, '_');
  // One build id for the page (__BUILD_ID__, data-build) and the MF manifest (mf-manifest.json's buildVersion, which
  // `pnpm release publish` sends): the manifest reads MF_BUILD_VERSION, else the package version.
  const buildId = process.env.BUILD_ID ?? `${version}`;
  process.env.MF_BUILD_VERSION ??= buildId;

  return (_env, argv) => {
    const production = argv.mode !== 'development';
    return {
      mode: production ? 'production' : 'development',
      context: appDir,
      entry: { main: './src/index.ts' },
      // No eval() in development either: the portal's CSP (script-src without 'unsafe-eval') applies in pnpm dev.
      devtool: production ? 'source-map' : 'cheap-module-source-map',
      output: {
        path: path.join(appDir, 'dist'),
        // The shell serves deep links (/profile), so its assets load from the root; remotes load from wherever
        // their remoteEntry.js was found.
        publicPath: role === 'host' ? '/' : 'auto',
        uniqueName: containerName,
        // MF's runtime cannot take a hashed entry name; entries are served no-cache instead.
        filename: '[name].js',
        chunkFilename: production ? '[name].[contenthash:10].js' : '[name].js',
        assetModuleFilename: '[name].[contenthash:10][ext]',
        // A module whose evaluation threw (say, it imports a shared singleton the MF runtime refused) is evaluated
        // again on its next import, and throws again, instead of being handed out half-initialised.
        strictModuleExceptionHandling: true,
        // Chunks load with CORS, as integrity checks need: every origin that loads a remote must be allowed by the
        // remote's host (server/src/static-host, --allow-origins). Same-origin loads (the shell) send no CORS check.
        crossOriginLoading: 'anonymous',
        clean: true,
      },
      resolve: {
        extensions: ['.ts', '.tsx', '.js', '.jsx', '.json'],
        // Sources import siblings Node-style ('./x.js'); find the .ts/.tsx behind them.
        extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        conditionNames: ['portal-source', 'browser', 'import', 'module', 'default'],
        alias: slimAliases(appDir, appRequire),
      },
      module: {
        rules: [
          {
            test: /\.[jt]sx?$/,
            exclude: /node_modules/,
            use: {
              loader: appRequire.resolve('swc-loader'),
              options: {
                jsc: {
                  parser: { syntax: 'typescript', tsx: true },
                  transform: { react: { runtime: 'automatic', development: !production, refresh: false } },
                  target: 'es2022',
                },
              },
            },
          },
          { test: /\.(png|svg|jpg|gif|woff2?)$/, type: 'asset/resource' },
          // antd's own packages say nothing about side effects, so webpack keeps every module an index imports:
          // antd's ConfigProvider imports one provider from @rc-component/form, and with it came the whole form
          // engine (useForm, Field, async-validator) into the first page. Their modules only define things.
          { test: SIDE_EFFECT_FREE_PACKAGES, sideEffects: false },
        ],
      },
      plugins: [
        new webpack.DefinePlugin({
          'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development'),
          __APP_NAME__: JSON.stringify(name),
          __APP_VERSION__: JSON.stringify(version),
          __BUILD_ID__: JSON.stringify(buildId),
        }),
        // The antd features the portal leaves out (ANTD_LEFT_OUT) get the module that refuses them.
        new webpack.NormalModuleReplacementPlugin(/[\\/]antd[\\/]es[\\/]/, (resolveData) => {
          const { resource } = resolveData.createData ?? {};
          const issuer = resolveData.contextInfo.issuer;
          if (
            resource &&
            ANTD_LEFT_OUT.some(
              ({ module, importedFrom }) => module.test(resource) && importedFrom.test(issuer),
            )
          )
            // A module of its own (webpack tells modules apart by request): the same antd module imported from
            // anywhere else (Menu's Tooltip) stays antd's.
            Object.assign(resolveData.createData, {
              resource: ANTD_FEATURE_LEFT_OUT,
              request: ANTD_FEATURE_LEFT_OUT,
              userRequest: ANTD_FEATURE_LEFT_OUT,
            });
        }),
        new ModuleFederationPlugin({
          name: containerName,
          filename: 'remoteEntry.js',
          exposes,
          shared: sharedConfig(appDir, appRequire),
          // 'version-first' fetches every remote's entry at start-up, so one dead remote would blank the page.
          shareStrategy: 'loaded-first',
          manifest: role === 'remote' ? { fileName: 'mf-manifest.json' } : false,
          dts: false,
          dev: false,
          experiments: {
            // Remotes are loaded by remoteEntry.js (no manifest snapshot), and consume no remotes themselves.
            optimization: {
              disableSnapshot: true,
              target: 'web',
              ...(role === 'remote' ? { disableRemote: true } : {}),
            },
          },
        }),
        // Each chunk's SHA-384 goes into the chunk that loads it, so the browser refuses a tampered chunk. The
        // remoteEntry.js itself is checked by the shell (integrity from the resolved remotes set).
        ...(production && role === 'remote'
          ? [
              new FilelessChunkIntegrityPlugin(),
              new SubresourceIntegrityPlugin({ hashFuncNames: SRI_HASHES, enabled: true }),
            ]
          : []),
        new HtmlWebpackPlugin({
          // The shell has its own page; every remote opened alone runs in the harness, whose one page they share.
          template:
            role === 'host'
              ? path.join(appDir, 'public/index.html')
              : appRequire.resolve('remote-harness/index.html'),
          title,
          // The remoteEntry is loaded by the MF runtime; the page itself only needs the entry.
          chunks: ['main'],
        }),
      ],
      optimization: {
        minimize: production,
        // Licence comments go to a `<chunk>.LICENSE.txt` beside each chunk (kept with the build, not downloaded):
        // okta-auth-js alone carried one per module, 1.4 kB gzip of the first page.
        minimizer: [new TerserPlugin({ minify: TerserPlugin.swcMinify, extractComments: true })],
      },
      performance: { hints: false },
      devServer: {
        port: devPort,
        host: 'localhost',
        historyApiFallback: true,
        hot: false,
        liveReload: true,
        headers: { 'Access-Control-Allow-Origin': '*' },
        client: { overlay: { warnings: false, errors: true } },
      },
      stats: production ? 'errors-warnings' : 'minimal',
    };
  };
}
