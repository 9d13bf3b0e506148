/**
 * The chat page: LangGraph's `useStream` against the server at /api. The thread id lives in the
 * address (`?thread=`), so a reload restores the conversation; the threads you had are listed
 * beside it. Each of your messages can be edited (a new branch from the checkpoint before it); an
 * interrupt shows Approve and Reject. `?assistant=` picks another graph of the server.
 */
import type { Message, Thread } from "@langchain/langgraph-sdk";
import { useStream } from "@langchain/langgraph-sdk/react";
import { useEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";

function text(message: Message): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part ? part.text : "")).join("");
}

const assistantId = new URL(location.href).searchParams.get("assistant") ?? "agent";

/** The address of thread `id`: this page's, with only the thread changed. */
function threadHref(id: string): string {
  const url = new URL(location.href);
  url.searchParams.set("thread", id);
  return url.href;
}

function App() {
  const [threadId, setThreadId] = useState<string | null>(
    new URL(location.href).searchParams.get("thread"),
  );
  const [draft, setDraft] = useState("");
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const stream = useStream<{ messages: Message[] }>({
    apiUrl: `${location.origin}/api`,
    assistantId,
    messagesKey: "messages",
    threadId,
    onThreadId: (id) => {
      setThreadId(id);
      const url = new URL(location.href);
      url.searchParams.set("thread", id);
      history.replaceState(null, "", url);
    },
    // Branching needs the checkpoint before each edited message: an agent turn with a tool takes
    // about five checkpoints, and the default reads only the last ten.
    fetchStateHistory: { limit: 100 },
    // A reload during an answer joins the run again (its events are kept by the server).
    reconnectOnMount: true,
  });

  // A reload right after Send can come before the run's id reached the page (the POST's
  // response was still on its way), so `reconnectOnMount` has nothing to join while the run goes
  // on at the server. Once per load (the thread in the address, not one the page creates later):
  // if no run id was kept, ask the server for the thread's running run and join it.
  const loadedThread = useRef(threadId);
  const streamRef = useRef(stream);
  streamRef.current = stream;
  useEffect(() => {
    const id = loadedThread.current;
    if (id === null || sessionStorage.getItem(`lg:stream:${id}`) !== null) return;
    void streamRef.current.client.runs
      .list(id, { status: "running", limit: 1 })
      .then(([run]) => (run ? streamRef.current.joinStream(run.run_id) : undefined))
      .catch(() => {});
  }, []);

  // The thread list, newest first: read on load and again whenever an answer ends.
  const [threads, setThreads] = useState<Thread[]>([]);
  useEffect(() => {
    if (stream.isLoading) return;
    void stream.client.threads
      .search({ limit: 20, sortBy: "updated_at", sortOrder: "desc" })
      .then(setThreads)
      .catch(() => {});
  }, [stream.isLoading, stream.client]);

  const send = (event: React.FormEvent) => {
    event.preventDefault();
    if (draft.trim() === "") return;
    stream.submit({ messages: [{ type: "human", content: draft }] });
    setDraft("");
  };

  return (
    <main>
      <h1>langchain-studio chat</h1>
      <ul id="threads">
        {threads.map((thread) => (
          <li key={thread.thread_id} data-id={thread.thread_id}>
            <a href={threadHref(thread.thread_id)}>{thread.thread_id}</a>
          </li>
        ))}
      </ul>
      <ol id="messages">
        {stream.messages.map((message) => {
          const meta = stream.getMessagesMetadata(message);
          const parent = meta?.firstSeenState?.parent_checkpoint;
          const branches = meta?.branchOptions ?? [];
          return (
            <li key={message.id} className={`message ${message.type}`} data-type={message.type}>
              {editing !== null && editing.id === message.id ? (
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    stream.submit(
                      { messages: [{ type: "human", content: editing.text }] },
                      { checkpoint: parent ?? null },
                    );
                    setEditing(null);
                  }}
                >
                  <input
                    className="edit-input"
                    value={editing.text}
                    onChange={(e) => setEditing({ id: editing.id, text: e.target.value })}
                  />
                  <button type="submit" className="save-edit">
                    Save
                  </button>
                </form>
              ) : (
                <span className="text">{text(message)}</span>
              )}
              {message.type === "human" && editing?.id !== message.id ? (
                <button
                  type="button"
                  className="edit"
                  onClick={() => setEditing({ id: message.id ?? "", text: text(message) })}
                >
                  Edit
                </button>
              ) : null}
              {branches.length > 1 && meta?.branch ? (
                <span className="branches">
                  <button
                    type="button"
                    className="prev-branch"
                    onClick={() => {
                      const i = branches.indexOf(meta.branch ?? "");
                      const prev = branches[i - 1];
                      if (prev) stream.setBranch(prev);
                    }}
                  >
                    ‹
                  </button>
                  {branches.indexOf(meta.branch) + 1}/{branches.length}
                  <button
                    type="button"
                    className="next-branch"
                    onClick={() => {
                      const i = branches.indexOf(meta.branch ?? "");
                      const next = branches[i + 1];
                      if (next) stream.setBranch(next);
                    }}
                  >
                    ›
                  </button>
                </span>
              ) : null}
            </li>
          );
        })}
      </ol>
      {stream.interrupt ? (
        <div id="interrupt">
          <pre>{JSON.stringify(stream.interrupt.value)}</pre>
          <button
            type="button"
            id="approve"
            onClick={() => stream.submit(undefined, { command: { resume: "approve" } })}
          >
            Approve
          </button>
          <button
            type="button"
            id="reject"
            onClick={() => stream.submit(undefined, { command: { resume: "reject" } })}
          >
            Reject
          </button>
        </div>
      ) : null}
      <form onSubmit={send}>
        <input
          id="draft"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Say something"
        />
        <button type="submit" id="send" disabled={stream.isLoading}>
          Send
        </button>
      </form>
      <p id="status">{stream.isLoading ? "thinking" : "ready"}</p>
      {stream.error ? <p id="error">{String(stream.error)}</p> : null}
    </main>
  );
}

const root = document.getElementById("root");
if (root) createRoot(root).render(<App />);
