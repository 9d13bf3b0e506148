/**
 * Sent in `User-Agent`. Kept as a constant instead of importing package.json so the built output
 * does not embed the whole manifest; a unit test keeps the two in step.
 */
export const VERSION = "0.1.0";
