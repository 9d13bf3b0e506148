import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { it, expect } from "vitest";
import { StudioClient } from "../../../src/client";
import { createRng } from "../../../src/emulator/rng";
import { StudioStore } from "../../../src/langgraph";
import { NamespaceThreads } from "../../../src/store/namespace-threads";
import { useEmulator } from "../../helpers/emulator";
const emulator = useEmulator({ recordRequests: false });
const orig = NamespaceThreads.prototype.compact;
NamespaceThreads.prototype.compact = async function (ns, now) { console.log("COMPACT", JSON.stringify(ns)); try { return await orig.call(this, ns, now); } catch (e) { console.log("COMPACT FAIL", e); throw e; } };
it("dbg", async () => {
  const rng = createRng(5);
  const memory = new InMemoryStore();
  const { baseUrl, apiKey } = emulator.handle;
  const studio = new StudioStore({ client: new StudioClient({ baseUrl, apiKey }) });
  const nss = [["hot"], ["hot", "sub"]];
  for (let step = 0; step < 300; step++) {
    const ns = nss[Math.floor(rng.next() * 2)]!;
    const key = `k${Math.floor(rng.next() * 3)}`;
    const r = rng.next();
    const op = r < 0.6 ? { namespace: ns, key, value: { n: step } } : r < 0.75 ? { namespace: ns, key, value: null } : { namespace: ns, key };
    const e = await memory.batch([op]);
    const a = await studio.batch([op]);
    const strip = (x: any) => x && { key: x.key, value: x.value };
    if (JSON.stringify(strip(a[0])) !== JSON.stringify(strip(e[0]))) { console.log("DIVERGE", step, JSON.stringify(op), JSON.stringify(a), JSON.stringify(e)); break; }
  }
});
