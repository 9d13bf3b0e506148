/**
 * `npm run bench`: runs every bench entry in one process and prints one table.
 * Entries are measured one after another (never concurrently) so they do not disturb each other.
 */
import os from "node:os";
import { type BenchEntry, type BenchRow, renderTable } from "./harness";

async function loadEntries(): Promise<BenchEntry[]> {
  const modules = await Promise.all([
    import("./client").then((m) => m.clientBench),
    import("./emulator").then((m) => m.emulatorBench),
    import("./emulator").then((m) => m.emulatorStorageBench),
    import("./chat").then((m) => m.chatBench),
    import("./llm").then((m) => m.llmBench),
    import("./history").then((m) => m.historyBench),
    import("./history").then((m) => m.sessionsBench),
    import("./concurrency").then((m) => m.concurrencyBench),
    import("./load").then((m) => m.loadBench),
    import("./bundle").then((m) => m.bundleBench),
    import("./imports").then((m) => m.importsBench),
    import("./memory").then((m) => m.memoryBench),
    import("./store").then((m) => m.storeBench),
    import("./agent-server").then((m) => m.agentServerBench),
    import("./coordination").then((m) => m.coordinationBench),
  ]);
  return modules;
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const entries = (await loadEntries()).filter((e) => only.length === 0 || only.includes(e.name));
  const rows: BenchRow[] = [];
  for (const entry of entries) {
    process.stderr.write(`running ${entry.name}...\n`);
    const started = Date.now();
    rows.push(...(await entry.run()));
    process.stderr.write(
      `  ${entry.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  console.log(`Machine: ${machine()}\n`);
  console.log(renderTable(rows));
  const failed = rows.filter((r) => r.pass === false);
  console.log(`\n${rows.length} rows, ${failed.length} below target`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
