// The router API the portal uses. Shared whole, react-router 7 costs ~59 KiB gzip on the first page; this list
// costs a fraction of it. The apps' webpack config also points `react-router-dom` here, so okta-react (which
// imports it as a namespace) gets this same single router. Need another export? Add it here.
export {
  BrowserRouter,
  Link,
  Navigate,
  NavLink,
  Outlet,
  Route,
  Routes,
  useLocation,
  useNavigate,
  useParams,
  useSearchParams,
} from 'react-router';
export type { NavigateFunction, NavLinkProps } from 'react-router';
