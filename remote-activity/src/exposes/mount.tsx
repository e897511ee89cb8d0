// The framework-agnostic entry (`./mount`): mount(element, options) renders the Devices & activity page into any
// element (themed, with its own auth context) and returns the unmount function. See the README: "Embed in any page".
import { createRemoteMount } from 'mount-runtime';
import ActivityPage from './ActivityPage.js';

const entry = createRemoteMount(ActivityPage, { name: 'remote_activity', label: 'Devices & activity' });

export const mount = entry.mount;
/** The same page as a bridge-react provider, for React hosts (`createRemoteAppComponent`). */
export default entry.provider;
