/** The texts of "Use by default" (issue 22): docs/texts.md lists them. */
export const PREFERRED_METHOD_TEXTS = {
  /** The button on an active method that is not the default. */
  use: 'Use by default',
  /** The tag on the default method. */
  tag: 'Default',
  /** The success message. */
  chosen: 'You will be asked for this method first when you sign in or verify.',
  /** A failure that is not a refusal of the server's. */
  failed: 'Your default method could not be changed. Try again.',
} as const;
