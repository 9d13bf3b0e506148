import type { Model } from "../../src/api-types";
import { DemoCheckError, type DemoStep } from "../step";
import { ui } from "../ui";

const SHOWN = 10;

function describeModel(model: Model): string {
  const description = model.meta?.metadata?.description;
  const details = [description?.model_type, description?.model_size, model.state?.state]
    .filter(Boolean)
    .join(", ");
  return details ? `${model.uri} (${details})` : model.uri;
}

export const modelsStep: DemoStep = {
  title: "Public models",
  intro:
    "Listing the public models. This call needs no API key; every page is fetched by an async\n" +
    "iterator, so nobody writes a paging loop.",
  async run(ctx) {
    const models: Model[] = [];
    for await (const model of ctx.backend.client.iteratePublicModels()) models.push(model);
    const wanted = ctx.config.model;
    if (models.length === 0 && !wanted) {
      throw new DemoCheckError(
        "the service listed no public models, so there is nothing to call",
        "Set STUDIO_MODEL to a model your account can use.",
      );
    }
    for (const model of models.slice(0, SHOWN)) ui.block(describeModel(model));
    if (models.length > SHOWN) ui.block(`… and ${models.length - SHOWN} more`);

    if (wanted) {
      if (!models.some((m) => m.uri === wanted)) {
        ui.warn(
          `STUDIO_MODEL=${wanted} is not a public model; using it anyway (it may be private).`,
        );
      }
      ctx.model = wanted;
    } else {
      ctx.model = models[0]!.uri;
    }
    ui.result("Model used below", `${ctx.model}${wanted ? " (from STUDIO_MODEL)" : ""}`);
  },
};
