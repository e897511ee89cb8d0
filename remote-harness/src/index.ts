export {
  createRemoteMount,
  type MountedPageProps,
  type RemoteMountEntry,
} from './mount/createRemoteMount.js';
export { checkMountElement, checkMountOptions, OPTION_NAMES } from './mount/options.js';
