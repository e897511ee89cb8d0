import { createRoot } from 'react-dom/client';
import { App } from './app/App.js';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element to render the portal into.');
createRoot(container).render(<App />);
