// Stands in for the antd features the portal leaves out, in every portal build (webpack.base.js, ANTD_LEFT_OUT,
// swaps it in for the antd module behind each): Typography's in-place editing (`editable`, which brings antd's
// TextArea and the input styles) and the tooltips of `copyable` and of a truncated `ellipsis`; Modal's `loading`
// skeleton. Typography and Modal are on every first page, and no page uses these features: a page that asks for
// one fails loudly here instead of every first page carrying them. Plain JavaScript: it replaces modules of antd
// after webpack chose their loaders (none).

/** What a page that uses one of them is told: how to have it added (README: "Adding a UI component"). */
export const ANTD_FEATURE_LEFT_OUT =
  "Typography's `editable`, `copyable` and ellipsis tooltip and Modal's `loading` are left out of the portal's " +
  'shared-ui: ask for the one you need to be added (README: "Adding a UI component").';

export default function AntdFeatureLeftOut() {
  throw new Error(ANTD_FEATURE_LEFT_OUT);
}
