//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) with MRTR: a call that
//! takes a while answers at once with a task, and the client reads it (`tasks/get`),
//! answers its questions (`tasks/update`) or stops it (`tasks/cancel`) with later requests,
//! which any replica sharing the task store can serve.
//!
//! # How tasks and `requestState` meet
//! - **Before a task exists, MRTR as usual.** A tool that needs the user before it can start
//!   asks in `input_required` rounds with a ticket; the retry that brings the answer (its
//!   ticket checked, and claimed under single use) is what starts the task. So the ticket
//!   rounds come first, and single use makes a replayed retry start nothing.
//! - **Once a task exists, no ticket.** Its state lives in the task store, not in the client's
//!   hands: `CreateTaskResult` and `tasks/get` never carry `requestState`, and the task's
//!   questions are read with `tasks/get` (status `input_required`, `inputRequests`) and
//!   answered with `tasks/update` (`inputResponses`), not by retrying the call. The same
//!   field names, separate state.
//! - **Keys are used once.** A key the task asked under is never asked again in its life; a
//!   question whose answer could not be read is asked again under a new key
//!   ([`work::TaskView::question`]). An answer to a key that is not open (never asked,
//!   already answered, a finished task's) is ignored, unread: a replayed answer changes nothing.
//! - **Only the owner.** A task belongs to the principal whose request created it; for anyone
//!   else every task method answers -32602 "Task not found", exactly as for an unknown id.
//! - **Only declared kinds.** A task asks only for the kinds of input its creating request
//!   declared (the request that polls may be another one, but the task was started for that
//!   one); a work that asks for another kind fails the task with -32021.
//! - **Capability first.** `tasks/*` from a request that does not declare the extension get
//!   -32021 before any task is looked up, and a tool that can only run as a task gets -32021
//!   from such a request instead of a task it could not read.
//!
//! # The conformance scenarios (0.2.0-alpha.12), and what each checks
//! | scenario | checks |
//! |---|---|
//! | `tasks-lifecycle` | `greet` stays synchronous; `slow_compute {seconds: 2}` answers `resultType: "task"`, flat, with no `result`, `error` or `inputRequests`, ISO times; `tasks/get` at once, then completed with `content`; `failing_job` completes with `isError: true` (not failed); `protocol_error_job` fails with an `error` and no `result`; `tasks/cancel` acknowledges with an empty result and the task ends within 10 s; cancelling a finished task acknowledges too |
//! | `tasks-capability-negotiation` | `server/discover` lists `extensions["io.modelcontextprotocol/tasks"]` and no `tasks`; the three methods without the extension get -32021 (for an id that does not exist); `slow_compute {seconds: 0}` without it runs synchronously; declaring it in one request's `_meta` alone gets a task |
//! | `tasks-wire-fields` | `ttlMs` (an integer, or null) and an integer `pollIntervalMs`, never `ttl`/`pollInterval`; a finished task is still readable 0.5 s later; no `related-task` `_meta` in the result |
//! | `tasks-request-state-removal` | neither the `CreateTaskResult` (`tasks-create-result-no-request-state`) nor `tasks/get` (`tasks-get-detailed-no-request-state`) has a `requestState` key |
//! | `tasks-mrtr-input` | `confirm_delete` reaches `input_required` with an elicitation in `inputRequests` (`tasks-get-status-input-required`); `tasks/update` with the answer acknowledges empty and the task completes (`tasks-mrtr-tasks-update-resumes`); `multi_input` shows two open keys, and right after the first is answered `tasks/get` shows only the second (`tasks-mrtr-partial-fulfillment`), then completes |
//! | `tasks-request-headers` | `Mcp-Method` tolerated on `tools/call`; `tasks/get` with `Mcp-Method`/`Mcp-Name: <taskId>` accepted; a wrong `Mcp-Method` and a wrong `Mcp-Name` each get -32020 |
//! | `tasks-dispatch-and-envelope` | `tasks/result` and `tasks/list` are -32601; a task without any hint from the client; a legacy `task` param ignored; `resultType: "complete"` on every non-task answer, an unknown answer key acknowledged; a task readable at once after it is created; an unknown id is -32602 |
//! | `tasks-required-task-error` | `failing_job` without the extension: -32021 with `data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]` |
//! | `tasks-mrtr-composition` | `test_tool_with_task` asks in an MRTR round first (no task yet), and the retry with the answer gets a task, with no `requestState` or `inputRequests`, that completes with the name |
//! | `tasks-status-notifications` | skipped by the suite itself |
//!
//! Choices where the text leaves a point open, each the strictest reading (and tested):
//! another caller's task is "not found" (-32602); `tasks/update` and `tasks/cancel` on an
//! unknown id are -32602 (a SHOULD); cancelling or answering a finished task acknowledges and
//! changes nothing; the inlined result carries `resultType: "complete"`; a task never expires
//! before `createdAt + ttlMs`; the answer is part of the task before `tasks/update`
//! acknowledges.

pub mod record;
mod serve;
pub mod store;
pub mod work;

pub use record::{Answer, Ending, TaskRecord, TaskStatus};
pub use serve::NOT_FOUND;
pub use store::{MemoryTaskStore, TaskStore, TaskStoreError};
pub use work::{advance, Progress, Question, TaskView, TaskWork};

use serde_json::json;

use crate::error::RpcError;

/// The extension's identifier, as declared under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// What happened to a task while a request was served (for logs and the page).
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEvent {
    /// A call started a task, in this status.
    Created {
        /// The task.
        id: String,
        /// Its first status (working, input_required, or already finished).
        status: TaskStatus,
    },
    /// The task moved from one status to another (written to the store).
    Moved {
        /// The task.
        id: String,
        /// Before.
        from: TaskStatus,
        /// After.
        to: TaskStatus,
    },
    /// Answers were delivered under these open keys.
    Answered {
        /// The task.
        id: String,
        /// The keys taken.
        keys: Vec<String>,
    },
    /// Answers under these keys were ignored: not open (never asked, answered, or the task ended).
    Ignored {
        /// The task.
        id: String,
        /// The keys ignored.
        keys: Vec<String>,
    },
}

/// Holes a server can be built with on purpose, for the audit's own tests (each makes one of
/// `mrtr-audit`'s task rows fail): never for a real server. All off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskFlaws {
    /// Any caller may read, answer and cancel any task (the owner is never compared).
    pub any_caller: bool,
    /// An answer under a key already answered is taken again, and a finished task it
    /// belongs to is run again from it: a replayed answer does the work twice.
    pub retake_answers: bool,
    /// A finished (cancelled, failed, completed) task takes answers to the questions it had
    /// open, and resumes.
    pub reopen_finished: bool,
}

/// -32021 naming the extension as the capability missing.
pub fn requires_tasks(message: impl Into<String>) -> RpcError {
    RpcError::missing_capability(message, json!({"extensions": {EXTENSION: {}}}))
}
