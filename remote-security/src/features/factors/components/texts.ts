/** The page's texts that belong to no one kind (each kind's own are in its descriptor, model/kinds/). */
export const UNEXPECTED_ERROR = 'An Unexpected Error happened...';

export const APP_STORE_URL = 'https://apps.apple.com/app/google-authenticator/id388497605';
export const PLAY_STORE_URL =
  'https://play.google.com/store/apps/details?id=com.google.android.apps.authenticator2';
