// antd's Modal and Typography, typed without the features every portal build leaves out (AntdFeatureLeftOut.js,
// swapped in by webpack.base.js): a page that passes one of these props fails the typecheck instead of failing
// at run time. The same components at run time; only their types are narrower.
import { Modal as AntModal, Typography as AntTypography } from 'antd';
import type { ComponentProps, JSXElementConstructor } from 'react';

/** Typography's in-place editing, copy button and truncation (whose tooltip is left out). */
type TypographyLeftOut = 'editable' | 'copyable' | 'ellipsis';

/** A component as its props type says, without the props of the features left out. */
type Without<Props, LeftOut extends PropertyKey> = JSXElementConstructor<Omit<Props, LeftOut>>;

export const Typography: {
  Title: Without<ComponentProps<typeof AntTypography.Title>, TypographyLeftOut>;
  Text: Without<ComponentProps<typeof AntTypography.Text>, TypographyLeftOut>;
  Paragraph: Without<ComponentProps<typeof AntTypography.Paragraph>, TypographyLeftOut>;
  Link: Without<ComponentProps<typeof AntTypography.Link>, TypographyLeftOut>;
} = AntTypography;

/** Modal without `loading` (its skeleton is left out): a dialog that waits shows a Spin in its content. */
export const Modal: Without<ComponentProps<typeof AntModal>, 'loading'> = AntModal;
