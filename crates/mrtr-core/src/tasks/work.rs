//! A task's work, as a function of what it has been given and the time. The work never runs
//! in the background: whoever reads or changes a task (any replica sharing the store) first
//! brings it up to now with [`advance`], and writes back what changed. So a task needs no
//! thread, no timer and no replica of its own, and the page's simulated clock runs it the
//! same way a real one does.

use serde_json::{json, Value};

use crate::error::RpcError;
use crate::tasks::record::{Answer, Asked, Ending, TaskRecord, TaskStatus};
use crate::wire::{ClientCapabilities, InputRequest, InputResponse};

/// Everything a task's work may look at.
#[derive(Clone, Copy, Debug)]
pub struct TaskView<'a> {
    /// What the tool handed the work when it started the task.
    pub seed: &'a Value,
    /// What the creating request declared it can answer.
    pub capabilities: &'a ClientCapabilities,
    /// When the task was created (milliseconds).
    pub started_ms: u64,
    /// Now.
    pub now_ms: u64,
    /// Every answer delivered so far, in order.
    pub answers: &'a [Answer],
    /// Every question asked so far.
    pub asked: &'a [Asked],
}

/// Where the work is now.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress {
    /// Still going; the sentence says where.
    Working(String),
    /// Waiting for these answers (keys never used before, or still open).
    InputRequired {
        /// Each question under its key.
        requests: Vec<(String, InputRequest)>,
        /// Why it waits, for people.
        message: String,
    },
    /// Done: the result body (the engine adds `resultType`).
    Completed(Value),
    /// Ended with a JSON-RPC error.
    Failed(RpcError),
}

impl Progress {
    /// A tool result with one text block.
    pub fn text(text: impl Into<String>) -> Progress {
        Progress::Completed(json!({"content": [crate::wire::text_content(text)], "isError": false}))
    }

    /// A tool result that reports the tool's own failure (`isError: true`): the task still
    /// completes, since the call itself worked.
    pub fn tool_error(text: impl Into<String>) -> Progress {
        Progress::Completed(json!({"content": [crate::wire::text_content(text)], "isError": true}))
    }

    /// One question.
    pub fn ask(key: String, request: InputRequest, message: impl Into<String>) -> Progress {
        Progress::InputRequired {
            requests: vec![(key, request)],
            message: message.into(),
        }
    }
}

/// A task's work: called whenever the task is read or answered, with everything it was
/// given, it says where the work is at that moment. It must be a function of its view alone,
/// and must not go back (an answer once used stays used), so that any replica computes the
/// same and the first to write wins.
pub type TaskWork = fn(&TaskView<'_>) -> Progress;

/// The fate of one question, asked again under a fresh key each time its answer could not
/// be read (keys are never reused in a task's life).
#[derive(Clone, Debug, PartialEq)]
pub enum Question {
    /// Not answered yet: ask (or keep asking) under this key.
    Open(String),
    /// Answered with this well-formed response.
    Answered(InputResponse),
    /// Answered badly this many times: give up.
    Unreadable(usize),
}

/// How many times a question is asked again after an answer that could not be read.
pub const MAX_ASKS: usize = 4;

impl TaskView<'_> {
    /// The question named `base`: asked under `base`, then `base.2`, `base.3`… each time an
    /// answer of the wrong kind or shape came back.
    pub fn question(&self, base: &str, method: &str) -> Question {
        for n in 1..=MAX_ASKS {
            let key = if n == 1 {
                base.to_owned()
            } else {
                format!("{base}.{n}")
            };
            let Some(answer) = self.answers.iter().find(|a| a.key == key) else {
                return Question::Open(key);
            };
            match InputResponse::classify(&answer.response) {
                Some(r) if r.method() == method => return Question::Answered(r),
                _ => continue,
            }
        }
        Question::Unreadable(MAX_ASKS)
    }

    /// When the answer under `key` arrived, if it did.
    pub fn answered_at(&self, key: &str) -> Option<u64> {
        self.answers.iter().find(|a| a.key == key).map(|a| a.at_ms)
    }

    /// Milliseconds since the task began.
    pub fn elapsed_ms(&self) -> u64 {
        self.now_ms.saturating_sub(self.started_ms)
    }
}

/// Brings `task` up to `now_ms` with its work: a finished task is left as it is; otherwise
/// the work says where it is, and the record follows (status, message, open questions, the
/// ending). True when anything changed (the caller then writes it back).
///
/// The engine holds the work to the extension's rules: a key once answered is never asked
/// again, and a kind of question the creating request did not declare ends the task with
/// -32021 rather than being asked.
pub fn advance(task: &mut TaskRecord, work: TaskWork, now_ms: u64) -> bool {
    if task.status.is_terminal() {
        return false;
    }
    let caps = task.client_capabilities();
    let progress = work(&TaskView {
        seed: &task.seed,
        capabilities: &caps,
        started_ms: task.created_ms,
        now_ms,
        answers: &task.answers,
        asked: &task.asked,
    });
    let before = (task.status, task.message.clone(), task.pending.clone());
    match progress {
        Progress::Working(message) => {
            task.status = TaskStatus::Working;
            task.message = Some(message);
            task.pending.clear();
        }
        Progress::InputRequired { requests, message } => match asked_fairly(task, &requests, &caps)
        {
            Ok(()) => {
                task.pending.clear();
                for (key, request) in requests {
                    if task.question(&key).is_none() {
                        task.asked.push(Asked {
                            key: key.clone(),
                            request: request.to_value(),
                        });
                    }
                    task.pending.push(key);
                }
                task.status = TaskStatus::InputRequired;
                task.message = Some(message);
            }
            Err(e) => fail(task, e),
        },
        Progress::Completed(body) => {
            // Exactly what the call would have returned: `resultType` first, as every result.
            let body = crate::server::with_result_type("complete", body);
            let is_error = body.get("isError").and_then(Value::as_bool) == Some(true);
            task.status = TaskStatus::Completed;
            task.message = Some(if is_error {
                "The tool ran and reported an error.".into()
            } else {
                "Done.".into()
            });
            task.pending.clear();
            task.ending = Some(Ending::Result(body));
        }
        Progress::Failed(e) => fail(task, e),
    }
    let changed = before != (task.status, task.message.clone(), task.pending.clone());
    if changed {
        task.updated_ms = now_ms.max(task.updated_ms);
    }
    changed
}

/// Ends the task with a JSON-RPC error.
fn fail(task: &mut TaskRecord, e: RpcError) {
    task.status = TaskStatus::Failed;
    task.message = Some(e.message.clone());
    task.pending.clear();
    task.ending = Some(Ending::Error(e.to_value()));
}

/// A question may be asked under a key never answered, only once per key with the same
/// request, and only of a kind the creating request declared.
fn asked_fairly(
    task: &TaskRecord,
    requests: &[(String, InputRequest)],
    caps: &ClientCapabilities,
) -> Result<(), RpcError> {
    if requests.is_empty() {
        return Err(RpcError::internal(
            "the task's work waits for input but asks nothing",
        ));
    }
    for (key, request) in requests {
        if task.answer(key).is_some() {
            return Err(RpcError::internal(format!(
                "the task's work asked again under {key:?}, a key already answered (keys are never reused in a task)"
            )));
        }
        if task
            .question(key)
            .is_some_and(|q| q.request != request.to_value())
        {
            return Err(RpcError::internal(format!(
                "the task's work asked another question under {key:?}"
            )));
        }
        if !caps.allows(request.kind()) {
            return Err(RpcError::missing_capability(
                format!(
                    "The task needs {} input, which the request that created it did not declare",
                    request.method()
                ),
                request.kind().required_capability(),
            ));
        }
    }
    Ok(())
}
