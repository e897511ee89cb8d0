import { describeMountEntry } from 'mount-runtime/testing';
import { mount } from './mount.js';

// The ./mount entry renders this remote's real page; mount-runtime tests the options and the lifecycle.
describeMountEntry({
  mount,
  pageHeading: 'Devices & activity',
  isFederated: false,
  shows: 'Recent activity',
});
