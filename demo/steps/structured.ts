import { z } from "zod/v4";
import { chatModel, type DemoStep } from "../step";
import { ui } from "../ui";

const Person = z.object({
  name: z.string().describe("full name"),
  born: z.number().int().describe("year of birth"),
  field: z.string().describe("what the person is known for"),
});

export const structuredStep: DemoStep = {
  title: "Structured output",
  intro:
    "withStructuredOutput() turns a zod schema into a forced tool call and parses the reply, so\n" +
    "you get a typed object instead of text (or a clear error if the reply does not fit).",
  async run(ctx) {
    const extractor = chatModel(ctx, { temperature: 0 }).withStructuredOutput(Person, {
      name: "person",
    });
    // The JSON record lets the emulator's scripted model fill the tool call; a real model reads
    // the sentence just as well.
    const text =
      "Extract the person: Ada Lovelace, born 1815, known for the first computer program. " +
      'Record: {"name": "Ada Lovelace", "born": 1815, "field": "computing"}';
    ui.result("Text", text);
    const person = await extractor.invoke(text);
    ui.result("Parsed", JSON.stringify(person));
    ui.result("Typed access", `${person.name} was born in ${person.born}`);
  },
};
