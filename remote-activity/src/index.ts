// The async boundary lets Module Federation set up the shared singletons before anything imports them.
import('./bootstrap');
