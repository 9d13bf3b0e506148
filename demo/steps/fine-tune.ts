import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod/v4";
import {
  exportFineTuneRecords,
  type SkippedThread,
  StudioConversationRecorder,
  validateFineTuneRecord,
} from "../../src/datasets";
import { chatModel, DemoCheckError, type DemoStep } from "../step";
import { clip, ui } from "../ui";

const getWeather = tool(({ city }) => `${city}: sunny, 21 °C`, {
  name: "get_weather",
  description: "Current weather for a city.",
  schema: z.object({ city: z.string().describe("city name, e.g. Paris") }),
});

const CITIES = ["Paris", "Lima", "Osaka"];

export const fineTuneStep: DemoStep = {
  title: "Record agent runs for fine-tuning",
  intro:
    "StudioConversationRecorder is a callback: every model run of the agent (what it was sent,\n" +
    "the tools offered, its answer) is stored in the background as one thread of a dataset.\n" +
    "exportFineTuneRecords turns the dataset into OpenAI chat fine-tuning lines, and\n" +
    "validateFineTuneRecord checks each line the way a fine-tuning service would.",
  async run(ctx) {
    const { client } = ctx.backend;
    const datasetId = `demo-fine-tune-${ctx.runId}`;
    const recordingErrors: string[] = [];
    const recorder = new StudioConversationRecorder({
      client,
      datasetId,
      onError: (error) => recordingErrors.push(error.message),
    });
    const agent = createAgent({
      model: chatModel(ctx, { temperature: 0 }),
      tools: [getWeather],
      systemPrompt: "You answer weather questions with the get_weather tool.",
    });
    try {
      let modelRuns = 0;
      for (const city of CITIES) {
        const question = `Weather in ${city}? Use get_weather with {"city": "${city}"}`;
        const { messages } = await agent.invoke(
          { messages: [{ role: "user", content: question }] },
          { callbacks: [recorder] },
        );
        // Each model run of the agent answered with one AI message.
        modelRuns += messages.filter((m) => m.type === "ai").length;
        ui.result(`Agent run (${city})`, clip(messages.at(-1)?.text ?? "", 100));
      }
      await recorder.flush();
      if (recordingErrors.length > 0) {
        throw new DemoCheckError(
          `${recordingErrors.length} model runs were not recorded: ${recordingErrors[0]}`,
          "Check that the account can create threads in a dataset.",
        );
      }

      const skipped: SkippedThread[] = [];
      let records = 0;
      let invalid = 0;
      for await (const record of exportFineTuneRecords({
        client,
        datasetId,
        format: "openai-chat",
        invalid: "skip",
        onSkip: (s) => skipped.push(s),
      })) {
        records++;
        if (validateFineTuneRecord(record).length > 0) invalid++;
        if (records === 1) ui.result("First record", clip(JSON.stringify(record), 300));
      }
      ui.result("Exported", `${records} fine-tuning records from ${modelRuns} model runs`);
      ui.result("Validated", invalid === 0 ? "every record is valid" : `${invalid} invalid`);
      const problems = skipped.flatMap((s) => s.problems.map((p) => `${p.path} ${p.message}`));
      if (records !== modelRuns || invalid > 0 || problems.length > 0) {
        throw new DemoCheckError(
          `expected ${modelRuns} valid records, got ${records}${problems.length > 0 ? `; left out: ${problems.join("; ")}` : ""}`,
          "The service may index datasets with a delay; run the demo again.",
        );
      }
    } finally {
      // allSettled: a failed clean-up must not hide the error that got us here.
      const threadIds: string[] = [];
      try {
        for await (const thread of client.iterateThreads({ datasetId })) threadIds.push(thread.id);
      } catch {
        ui.warn("The demo's recorded threads could not be listed for deletion.");
      }
      const deleted = await Promise.allSettled(threadIds.map((id) => client.deleteThread(id)));
      const left = deleted.filter((d) => d.status === "rejected").length;
      if (left > 0) ui.warn(`${left} of the demo's recorded threads could not be deleted.`);
    }
    ui.explain("The demo's recorded threads were deleted again.");
  },
};
