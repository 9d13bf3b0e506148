import { chatModel, type DemoStep } from "../step";
import { ui } from "../ui";

export const streamStep: DemoStep = {
  title: "Stream tokens",
  intro:
    "`stream()` yields message chunks as the service sends them; each one is written to the\n" +
    "terminal the moment it arrives.",
  async run(ctx) {
    const model = chatModel(ctx, { temperature: 0.7, maxTokens: 120 });
    const prompt = "Tell a three-line story about a lighthouse keeper who counts the waves.";
    ui.result("You", prompt);
    ui.startStream("AI");
    let chunks = 0;
    let text = "";
    for await (const chunk of await model.stream(prompt)) {
      chunks++;
      text += chunk.text;
      ui.token(chunk.text);
    }
    ui.endStream();
    ui.result("Received", `${chunks} chunks, ${text.length} characters`);
  },
};
