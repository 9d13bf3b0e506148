import { spawn } from "node:child_process";
import { LLM } from "@langchain/core/language_models/llms";
import { Pool } from "undici";
import { StudioClient } from "../src/client";
import { StudioLLM } from "../src/llms";
import { measureInterleaved } from "./harness";

const child = spawn(process.execPath, ["--import", "tsx", "src/emulator/cli.ts", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const out = await new Promise<string>((res) => { let t = ""; child.stdout!.setEncoding("utf8"); child.stdout!.on("data", (c: string) => { t += c; if (t.includes("STUDIO_API_KEY=") && t.endsWith("\n")) res(t); }); });
const proxyUrl = /STUDIO_PROXY_URL=(\S+)/.exec(out)![1]!; const apiKey = /STUDIO_API_KEY=(\S+)/.exec(out)![1]!;
const url = new URL(proxyUrl);
const body = { model: "studio/echo-text", prompt: "Hello, how are you today?", max_tokens: 16 };
const client = new StudioClient({ apiKey, proxyUrl });
const pool = new Pool(url.origin);
const raw = async (p: string) => { const r = await pool.request({ method: "POST", path: `${url.pathname}/text/completions`, headers: { "content-type": "application/json", authorization: apiKey }, body: JSON.stringify({ ...body, prompt: p }) }); return ((await r.body.json()) as any).choices[0].text; };
class ThinPool extends LLM { _llmType() { return "thin"; } async _call(p: string) { return raw(p); } }
class ThinClient extends LLM { _llmType() { return "thin"; } async _call(p: string) { return (await client.textCompletion({ ...body, prompt: p })).choices[0]!.text; } }
const llm = new StudioLLM({ model: "studio/echo-text", client, maxTokens: 16 });
const tp = new ThinPool({}); const tc = new ThinClient({});
const times = await measureInterleaved({
  raw: () => raw(body.prompt),
  client: () => client.textCompletion(body),
  thinPool: () => tp.invoke(body.prompt),
  thinClient: () => tc.invoke(body.prompt),
  studio: () => llm.invoke(body.prompt),
}, { iterations: 300, rounds: 7 });
console.log(times);
await client.close(); await pool.close(); child.kill("SIGTERM");
