/**
 * `sha256Hex` names stored datasets (an owner's threads, a client-chosen id): on Node it hashes
 * with node:crypto, elsewhere with Web Crypto, and both must name the same dataset.
 */
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/threads/service-identity";

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

describe("sha256Hex", () => {
  it("is Web Crypto's SHA-256 of the UTF-8, lone surrogates and NULs included", async () => {
    for (const text of ["", "chat\u0000ada", "héllo 😀", "a\ud800b", "\udfff"]) {
      expect(await sha256Hex(text)).toBe(await webCryptoHex(text));
    }
    expect(await sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});
