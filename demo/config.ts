/**
 * Where the demo runs and keeps its state, decided from the environment once at start-up.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SERVICE_ENV_VARS = ["STUDIO_API_KEY", "STUDIO_BASE_URL", "STUDIO_PROXY_URL"] as const;

export type DemoTarget =
  | { kind: "emulator"; dataFile: string; partialServiceVars: string[] }
  | {
      kind: "service";
      apiKey: string;
      baseUrl: string;
      proxyUrl: string;
      orgId: string | undefined;
    };

export interface DemoConfig {
  target: DemoTarget;
  /** Folder for the emulator's data file. */
  stateDir: string;
  /** `STUDIO_MODEL`, when the user picked one. */
  model: string | undefined;
}

// Resolved from this file rather than the working directory, so `npx tsx demo/index.ts` run from
// anywhere uses the same `.studio/` folder.
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export function readDemoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  const stateDir = env.STUDIO_DEMO_DIR ? resolve(env.STUDIO_DEMO_DIR) : join(repoRoot, ".studio");
  const model = env.STUDIO_MODEL || undefined;
  const { STUDIO_API_KEY: apiKey, STUDIO_BASE_URL: baseUrl, STUDIO_PROXY_URL: proxyUrl } = env;
  if (apiKey && baseUrl && proxyUrl) {
    return {
      target: { kind: "service", apiKey, baseUrl, proxyUrl, orgId: env.STUDIO_ORG_ID || undefined },
      stateDir,
      model,
    };
  }
  return {
    target: {
      kind: "emulator",
      dataFile: join(stateDir, "emulator-data.json"),
      partialServiceVars: SERVICE_ENV_VARS.filter((name) => env[name]),
    },
    stateDir,
    model,
  };
}
