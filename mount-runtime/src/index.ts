export { createRemoteMount, type MountedPageProps, type RemoteMountEntry } from './createRemoteMount.js';
export { checkMountElement, checkMountOptions, OPTION_NAMES } from './options.js';
