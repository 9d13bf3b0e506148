import { describe, expect, it } from "vitest";
import type { ThreadMessage } from "../../../src/api-types";
import { RecordAssembler, recordMessages } from "../../../src/records/parts";

function stored(text: string, partChars: number): ThreadMessage[] {
  return recordMessages(text, { kind: "test" }, partChars, () => "r1").map((message, i) => ({
    id: `m${i + 1}`,
    role: message.role,
    content: [{ type: "text", text: message.content }],
    metadata: message.metadata,
  }));
}

describe("RecordAssembler", () => {
  it("gives a whole record at once, parsed", () => {
    const [message] = stored('{"a":1}', 1000);
    const read = new RecordAssembler<string>().add(message!, "kept");
    expect(read).toEqual({ value: { a: 1 }, split: false, parts: ["kept"], read: ["kept"] });
  });

  it("gives a split record once its last part is read, in any order", () => {
    const text = JSON.stringify({ items: ["x".repeat(40), "y".repeat(40)] });
    const messages = stored(text, 30);
    expect(messages.length).toBeGreaterThan(2);
    const assembler = new RecordAssembler<string>();
    const newestFirst = [...messages].reverse();
    for (const message of newestFirst.slice(0, -1)) {
      expect(assembler.add(message, message.id)).toBeUndefined();
    }
    expect([...assembler.waiting()]).toEqual([newestFirst.slice(0, -1).map((m) => m.id)]);
    const whole = assembler.add(newestFirst.at(-1)!, newestFirst.at(-1)!.id);
    expect(whole).toEqual({
      value: JSON.parse(text),
      split: true,
      parts: messages.map((m) => m.id),
      read: newestFirst.map((m) => m.id),
    });
    expect([...assembler.waiting()]).toEqual([]);
  });

  it("gives undefined as the value of text that is not JSON", () => {
    const [message] = stored("not json", 1000);
    expect(new RecordAssembler<string>().add(message!, "kept")?.value).toBeUndefined();
  });

  it("forgets the records a dropped message belongs to", () => {
    const messages = stored(JSON.stringify({ text: "z".repeat(80) }), 30);
    const assembler = new RecordAssembler<string>();
    assembler.add(messages[0]!, "old");
    assembler.dropWhere((kept) => kept === "old");
    expect([...assembler.waiting()]).toEqual([]);
    // The record's other parts alone no longer complete it.
    for (const message of messages.slice(1)) {
      expect(assembler.add(message, message.id)).toBeUndefined();
    }
  });
});
