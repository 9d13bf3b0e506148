/**
 * Base64 for bytes, on the Web APIs every runtime has (`btoa`/`atob`): Node 20 lacks
 * `Uint8Array.fromBase64`, and `Buffer` is Node-only.
 */

/** Standard base64 (with padding) of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // Chunked: spreading a large array into one call would overflow the argument limit.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The bytes of base64 `text`, standard or URL-safe, padded or not; undefined when it is not
 * base64 (the caller says what it expected).
 */
export function fromBase64(text: string): Uint8Array | undefined {
  const bare = text
    .trim()
    .replaceAll("-", "+")
    .replaceAll("_", "/")
    .replace(/={1,2}$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(bare) || bare.length % 4 === 1) return undefined;
  const binary = atob(bare + "=".repeat((4 - (bare.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
