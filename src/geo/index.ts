/** The geometry kernel: pure functions on [lat, lon] coordinates. Imports nothing of ours. */
export * from './spherical.js';
export * from './planar.js';
export * from './polyline.js';
export * from './ellipsoidal.js';
