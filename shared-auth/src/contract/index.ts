export * from './countries.js';
export * from './errors.js';
export * from './password.js';
export * from './password-policy.js';
export * from './paths.js';
export * from './profile.js';
export * from './settings.js';
export * from './remotes.js';
