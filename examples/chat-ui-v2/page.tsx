/**
 * The chat page on protocol v2: `@langchain/react`'s `useStream` (the v2-native hook) against the
 * server at `?api=` (default: this origin's /api), with graph `?assistant=` (default "agent"). The hook mints the thread id on the first
 * message; the page keeps it in the address (`?thread=`) so a reload finds the thread again.
 * Tokens stream into the last answer, tool calls are listed as they run, an interrupt shows
 * Approve, each of your messages can be edited (a fork from the checkpoint before it), and a
 * message sent while an answer is on its way waits in the submission queue.
 *
 * A reload resumes the thread's event stream after the last event the page saw (`since`): the
 * hook re-reads the state and reattaches, and the page hands the server the last `seq` it kept,
 * so only newer events come again.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { type AnyStream, useChannelEffect, useStream, useSubmissionQueue } from "@langchain/react";
import { useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URL(location.href).searchParams;
const apiUrl = params.get("api") ?? `${location.origin}/api`;
const assistantId = params.get("assistant") ?? "agent";
const seqKey = (threadId: string) => `v2:seq:${threadId}`;

/**
 * The hook's own fetch, with `since` added to the event streams it opens while it reattaches
 * after a load (before this page sends a command): the last `seq` seen before the reload, kept in
 * sessionStorage. Streams opened for a run this page starts are the hook's own.
 */
function resumingFetch(): typeof fetch {
  let reattaching = true;
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const path = new URL(url).pathname;
    if (path.endsWith("/commands")) reattaching = false;
    const threadId = /\/threads\/([^/]+)\/stream\/events$/.exec(path)?.[1];
    if (reattaching && threadId && init?.method === "POST" && typeof init.body === "string") {
      const since = sessionStorage.getItem(seqKey(decodeURIComponent(threadId)));
      const body = JSON.parse(init.body) as Record<string, unknown>;
      if (since !== null && body.since === undefined) {
        return fetch(input, { ...init, body: JSON.stringify({ ...body, since: Number(since) }) });
      }
    }
    return fetch(input, init);
  };
}

const pageFetch = resumingFetch();

function text(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part ? String(part.text) : "")).join("");
}

/**
 * The checkpoint to fork from when a message is edited: the parent of the first checkpoint that
 * holds the message (the state just before it was added). The hook's `useMessageMetadata` is not
 * used: in SDK 1.11.0 it records, for every message in a values snapshot, the parent of the latest
 * checkpoint, so an edit of an earlier message would fork from the newest state.
 */
async function forkPoint(stream: AnyStream, messageId: string | undefined): Promise<string> {
  const threadId = stream.threadId;
  if (threadId === null || messageId === undefined) throw new Error("nothing to edit yet");
  const history = await stream.client.threads.getHistory<{ messages?: { id?: string }[] }>(
    threadId,
    { limit: 100 },
  );
  const holding = history.filter((s) => s.values.messages?.some((m) => m.id === messageId));
  const parent = holding.at(-1)?.parent_checkpoint?.checkpoint_id;
  if (!parent) throw new Error(`no checkpoint before message ${messageId}`);
  return parent;
}

function Message(props: { stream: AnyStream; message: BaseMessage; onForked: () => void }) {
  const { stream, message, onForked } = props;
  const [editing, setEditing] = useState<string | null>(null);
  const type = message.type;
  return (
    <li className={`message ${type}`} data-type={type}>
      {editing !== null ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void forkPoint(stream, message.id)
              .then((forkFrom) =>
                stream.submit({ messages: [{ type: "human", content: editing }] }, { forkFrom }),
              )
              .then(onForked);
            setEditing(null);
          }}
        >
          <input
            className="edit-input"
            value={editing}
            onChange={(e) => setEditing(e.target.value)}
          />
          <button type="submit" className="save-edit">
            Save
          </button>
        </form>
      ) : (
        <span className="text">{text(message)}</span>
      )}
      {type === "human" && editing === null ? (
        <button type="button" className="edit" onClick={() => setEditing(text(message))}>
          Edit
        </button>
      ) : null}
    </li>
  );
}

function App(props: { onForked: () => void }) {
  const [threadId, setThreadId] = useState(() => new URL(location.href).searchParams.get("thread"));
  const [draft, setDraft] = useState("");
  const [deltas, setDeltas] = useState(0);
  const stream = useStream({
    apiUrl,
    assistantId,
    threadId,
    fetch: pageFetch,
    onThreadId: (id) => {
      setThreadId(id);
      const url = new URL(location.href);
      url.searchParams.set("thread", id);
      history.replaceState(null, "", url);
    },
  });
  const queue = useSubmissionQueue(stream);

  // Every event the hook's root stream delivers: the last `seq` is kept for a reload, and the
  // token deltas are counted (the answer arrives in pieces, not in one values snapshot).
  useChannelEffect(stream, ["values", "checkpoints", "lifecycle", "input", "messages", "tools"], {
    onEvent(event) {
      const id = stream.threadId;
      if (id !== null && typeof event.seq === "number") {
        const kept = Number(sessionStorage.getItem(seqKey(id)) ?? -1);
        if (event.seq > kept) sessionStorage.setItem(seqKey(id), String(event.seq));
      }
      const data = event.params.data as { event?: string } | undefined;
      if (event.method === "messages" && data?.event === "content-block-delta") {
        setDeltas((n) => n + 1);
      }
    },
  });

  const send = (event: React.FormEvent) => {
    event.preventDefault();
    if (draft.trim() === "") return;
    // While an answer is on its way the message waits in the queue and is sent after it.
    void stream.submit(
      { messages: [{ type: "human", content: draft }] },
      stream.isLoading ? { multitaskStrategy: "enqueue" } : undefined,
    );
    setDraft("");
  };

  return (
    <main>
      <h1>langchain-studio chat (protocol v2)</h1>
      <ol id="messages">
        {stream.messages.map((message, i) => (
          <Message
            key={message.id ?? i}
            stream={stream}
            message={message}
            onForked={props.onForked}
          />
        ))}
      </ol>
      <ul id="tools">
        {stream.toolCalls.map((call) => (
          <li key={call.id} data-name={call.name} data-status={call.status}>
            {call.name} {JSON.stringify(call.args)}
          </li>
        ))}
      </ul>
      {stream.interrupt ? (
        <div id="interrupt">
          <pre>{JSON.stringify(stream.interrupt.value)}</pre>
          <button type="button" id="approve" onClick={() => void stream.respond("approve")}>
            Approve
          </button>
          <button type="button" id="reject" onClick={() => void stream.respond("reject")}>
            Reject
          </button>
        </div>
      ) : null}
      <ol id="queue" data-size={queue.size}>
        {queue.entries.map((entry) => (
          <li key={entry.id}>{JSON.stringify(entry.values)}</li>
        ))}
      </ol>
      <form onSubmit={send}>
        <input
          id="draft"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Say something"
        />
        <button type="submit" id="send">
          Send
        </button>
      </form>
      <p id="status">{stream.isLoading ? "thinking" : "ready"}</p>
      <p id="deltas">{deltas}</p>
      {stream.error ? <p id="error">{String(stream.error)}</p> : null}
    </main>
  );
}

/**
 * After a fork the page reads the thread again (a new hook): the hook's message list (SDK 1.11.0)
 * merges a snapshot from an earlier step than it has seen add-only, so the branch's values would
 * keep the messages the fork left behind.
 */
function Page() {
  const [reads, setReads] = useState(0);
  return <App key={reads} onForked={() => setReads((n) => n + 1)} />;
}

const root = document.getElementById("root");
if (root) createRoot(root).render(<Page />);
