/** Applications, app tokens, password hashing. */
export * from './auth-service.js';
export * from './app-tokens.js';
export * from './password.js';
export { migrations } from './migrations.js';
