/**
 * The queue the sequencer hands the two workers (test/setup/spread.ts): the cluster files run
 * beside the others, the first at once and each next one only after enough of the other files
 * that the one before it has ended, so two of them seldom meet.
 */
import { describe, expect, it } from "vitest";
import { SPREAD_MARGIN, spreadFiles } from "../../setup/spread";

interface File {
  name: string;
  seconds: number;
  cluster?: boolean;
}

const spread = (files: File[]) =>
  spreadFiles(
    files,
    (file) => file.cluster === true,
    (file) => file.seconds,
  ).map((file) => file.name);

/** Seconds of other files queued between each cluster file and the next one. */
function gaps(files: File[]): { after: File; others: number }[] {
  const queue = spreadFiles(
    files,
    (file) => file.cluster === true,
    (file) => file.seconds,
  );
  const out: { after: File; others: number }[] = [];
  for (const [index, file] of queue.entries()) {
    if (!file.cluster) continue;
    const next = queue.findIndex((later, at) => at > index && later.cluster);
    if (next === -1) continue;
    const between = queue.slice(index + 1, next);
    out.push({ after: file, others: between.reduce((sum, other) => sum + other.seconds, 0) });
  }
  return out;
}

const others = (count: number, seconds: number, prefix = "o"): File[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}`, seconds }));

describe("spreadFiles", () => {
  it("starts the longest cluster file right after the first other file", () => {
    const files = [
      ...others(10, 5),
      { name: "short", seconds: 5, cluster: true },
      { name: "long", seconds: 30, cluster: true },
    ];
    expect(spread(files).slice(0, 2)).toEqual(["o0", "long"]);
  });

  it("queues enough of the other files between two cluster files for the first to end", () => {
    const files = [
      { name: "c1", seconds: 30, cluster: true },
      { name: "c2", seconds: 20, cluster: true },
      { name: "c3", seconds: 8, cluster: true },
      ...others(40, 3),
      ...others(5, 12, "long"),
    ];
    const between = gaps(files);
    expect(between.map((gap) => gap.after.name)).toEqual(["c1", "c2"]);
    for (const { after, others: seconds } of between) {
      expect(seconds).toBeGreaterThanOrEqual(SPREAD_MARGIN * after.seconds);
    }
  });

  it("keeps the other files in their order and loses no file", () => {
    const files = [
      ...others(3, 1),
      { name: "c1", seconds: 30, cluster: true },
      { name: "c2", seconds: 20, cluster: true },
    ];
    const queue = spread(files);
    expect(queue.filter((name) => name.startsWith("o"))).toEqual(["o0", "o1", "o2"]);
    // Too few other files to space them: the rest go last, still longest first.
    expect(queue).toEqual(["o0", "c1", "o1", "o2", "c2"]);
  });

  it("leaves a queue with no cluster file as it was", () => {
    const files = others(4, 2);
    expect(spread(files)).toEqual(["o0", "o1", "o2", "o3"]);
  });
});
