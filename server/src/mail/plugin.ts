/* Transitional (issue 10): app.ts still imports this path; it registers plugins/app/* instead (see the report). Delete once app.ts is switched. */
export { default } from '../plugins/app/mail.js';
