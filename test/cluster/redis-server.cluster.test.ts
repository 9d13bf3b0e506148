/**
 * The tests' own redis-server (test/setup/redis-server.ts): it answers on its port, keeps nothing
 * across a restart (no persistence: a restarted Redis is an empty one), and leaves no folder.
 */
import { existsSync } from "node:fs";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { startRedisServer } from "../setup/redis-server";

describe("the tests' redis-server", () => {
  it("serves on a free loopback port, comes back empty from a restart, and cleans up", async () => {
    const server = await startRedisServer();
    const redis = createClient({ url: server.url });
    redis.on("error", () => {});
    try {
      await redis.connect();
      await redis.set("k", "v");
      expect(await redis.get("k")).toBe("v");
      expect(await redis.configGet("appendonly")).toEqual({ appendonly: "no" });
      expect(await redis.configGet("save")).toEqual({ save: "" });

      const back = new Promise((resolve) => redis.once("ready", resolve));
      await server.restart({ hard: true });
      // node-redis reconnects by itself to the same address, and finds an empty Redis.
      await back;
      expect(await redis.get("k")).toBeNull();
      expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    } finally {
      redis.destroy();
      expect(existsSync(server.dir)).toBe(true);
      await server.close();
      expect(existsSync(server.dir)).toBe(false);
    }
  });
});
