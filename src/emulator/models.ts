/**
 * The seeded public models. Every one is READY and its endpoint points at the emulator's own
 * proxy address, so code that follows `endpoint.url` stays on loopback. Every chat model is
 * tagged `tools`, the tag a model profile reads as tool calling: the scripted model calls tools
 * whichever chat model is asked.
 */
import type { Model } from "../api-types";

interface Seed {
  id: string;
  uri: string;
  name: string;
  size: string;
  type: string;
  tags: string[];
  base: string;
}

const SEEDS: readonly Seed[] = [
  {
    id: "mdl_echo_small",
    uri: "studio/echo-small",
    name: "echo-small",
    size: "1B",
    type: "chat",
    tags: ["chat", "scripted", "tools"],
    base: "studio/echo",
  },
  {
    id: "mdl_echo_large",
    uri: "studio/echo-large",
    name: "echo-large",
    size: "70B",
    type: "chat",
    tags: ["chat", "scripted", "tools"],
    base: "studio/echo",
  },
  {
    id: "mdl_llama_3_8b_instruct",
    uri: "meta/llama-3-8b-instruct",
    name: "llama-3-8b-instruct",
    size: "8B",
    type: "chat",
    tags: ["chat", "instruct", "tools"],
    base: "meta-llama/Meta-Llama-3-8B-Instruct",
  },
  {
    id: "mdl_mistral_7b_instruct",
    uri: "mistralai/mistral-7b-instruct",
    name: "mistral-7b-instruct",
    size: "7B",
    type: "chat",
    tags: ["chat", "instruct", "tools"],
    base: "mistralai/Mistral-7B-Instruct-v0.3",
  },
  {
    id: "mdl_echo_text",
    uri: "studio/echo-text",
    name: "echo-text",
    size: "1B",
    type: "text",
    tags: ["text", "scripted"],
    base: "studio/echo",
  },
];

const SEEDED_AT = "2024-01-01T00:00:00.000Z";

export function seedModels(proxyUrl: string): Model[] {
  return SEEDS.map((seed) => ({
    id: seed.id,
    name: seed.name,
    createdAt: SEEDED_AT,
    updatedAt: SEEDED_AT,
    meta: {
      metadata: {
        base_model_id: seed.base,
        description: { model_size: seed.size, model_tags: [...seed.tags], model_type: seed.type },
        extra_args: { max_model_len: "8192" },
      },
      quantization: "QUANTIZATION_FP16",
      shutdownSettings: { autoShutdownDuration: "-1s" },
      modality: "MODALITY_TEXT",
    },
    resource: { gpu: "NVIDIA_A100", gpuCount: "1", maxRetries: 3 },
    replicas: 1,
    state: { state: "READY" },
    public: true,
    uri: seed.uri,
    endpoint: { id: seed.uri, url: `${proxyUrl}/${seed.uri}`, host: proxyUrl },
  }));
}
