// The primitive lives in src/crypto (the key ring seals with it too); kept here for the factors' imports.
export { deriveKey, SecretBox } from '../crypto/secret-box.js';
