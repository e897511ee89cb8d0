import { startEarlyRequests } from './lib/earlyRequests.js';

startEarlyRequests();
// The async boundary lets Module Federation set up the shared singletons before anything imports them.
import('./bootstrap');
