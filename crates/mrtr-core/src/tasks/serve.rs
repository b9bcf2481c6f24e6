//! The server's side of the extension: starting a task for a call, and `tasks/get`,
//! `tasks/update` and `tasks/cancel`.

use serde_json::{json, Value};

use crate::entropy::Entropy;
use crate::error::RpcError;
use crate::server::{CallContext, Server, TraceEvent};
use crate::tasks::record::{Answer, TaskRecord, TaskStatus};
use crate::tasks::store::TaskStoreError;
use crate::tasks::work::advance;
use crate::tasks::{requires_tasks, TaskEvent, TaskFlaws};
use crate::ticket::Principal;
use crate::wire::ClientCapabilities;

/// How many times a change is tried again when another replica changed the task first.
const CONFLICT_TRIES: usize = 8;

/// The sentence for any task this caller may not see: unknown, expired, or somebody else's.
/// One sentence for all three, so a caller learns nothing about tasks that are not theirs.
pub const NOT_FOUND: &str = "Task not found";

/// What a task method does to a task brought up to now.
enum Change<'p> {
    /// `tasks/get`: nothing more.
    Read,
    /// `tasks/update`: deliver these answers.
    Answer(&'p serde_json::Map<String, Value>),
    /// `tasks/cancel`: stop it, unless it already ended.
    Cancel,
}

impl Server {
    /// Starts a task for `tool` with `seed`, for a call whose handler asked for one: -32021
    /// when the request did not declare the extension (a task is never sent to a client that
    /// cannot read it). The task is stored before the call answers with it.
    pub(crate) fn start_task(
        &self,
        tool: &str,
        seed: Value,
        caps: &ClientCapabilities,
        ctx: &mut CallContext<'_>,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Value, RpcError> {
        if !caps.tasks {
            return Err(requires_tasks(format!(
                "{tool} runs as a task, and this request did not declare the tasks extension"
            )));
        }
        let Some(work) = self.catalog.task_work(tool) else {
            return Err(RpcError::internal(format!("{tool} has no task work")));
        };
        let now_ms = ctx.clock.now_ms();
        let mut task = TaskRecord {
            id: String::new(),
            owner: ctx.principal.as_claim(),
            tool: tool.to_owned(),
            seed,
            capabilities: caps.to_value(),
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms: self.config.task_ttl_ms,
            poll_ms: self.config.task_poll_ms,
            status: TaskStatus::Working,
            message: None,
            asked: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
            ending: None,
        };
        // Its first step runs now: a task that needs an answer at once says so in its first
        // poll, and one that is done at once is born completed.
        advance(&mut task, work, now_ms);
        // An id is 128 random bits: taken only if the randomness repeats. Then draw again,
        // never overwrite another's task.
        let mut tries = 0;
        loop {
            task.id = task_id(ctx.entropy);
            match self.tasks.create(&task, now_ms) {
                Ok(()) => break,
                Err(TaskStoreError::Taken) if tries < 3 => tries += 1,
                Err(e) => return Err(store_error(e, "created")),
            }
        }
        trace.push(TraceEvent::Task(TaskEvent::Created {
            id: task.id.clone(),
            status: task.status,
        }));
        if task.status.is_terminal() {
            trace.push(TraceEvent::Task(TaskEvent::Moved {
                id: task.id.clone(),
                from: TaskStatus::Working,
                to: task.status,
            }));
        }
        Ok(task.create_result())
    }

    /// `tasks/get`, `tasks/update` or `tasks/cancel`.
    pub(crate) fn task_method(
        &self,
        method: &str,
        params: &Value,
        caps: &ClientCapabilities,
        ctx: &mut CallContext<'_>,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Value, RpcError> {
        // Gated before anything is looked up: a client that cannot read tasks learns nothing.
        if !caps.tasks {
            return Err(requires_tasks(format!(
                "{method} belongs to the tasks extension, which this request did not declare"
            )));
        }
        let id = params
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params(format!("{method} needs a string \"taskId\""))
            })?;
        let change = match method {
            "tasks/get" => Change::Read,
            "tasks/cancel" => Change::Cancel,
            _ => match params.get("inputResponses") {
                Some(Value::Object(m)) => Change::Answer(m),
                _ => {
                    return Err(RpcError::invalid_params(
                        "tasks/update needs \"inputResponses\", an object keyed like the task's inputRequests",
                    ))
                }
            },
        };
        let task = self.change_task(id, &change, ctx.principal, ctx.clock.now_ms(), trace)?;
        Ok(match change {
            Change::Read => task.detailed(),
            // An empty acknowledgement: what changed is read with tasks/get.
            Change::Answer(_) | Change::Cancel => json!({"resultType": "complete"}),
        })
    }

    /// Loads the caller's task, brings it up to now, applies the change and writes it back
    /// (again from a fresh read if another replica wrote first).
    fn change_task(
        &self,
        id: &str,
        change: &Change<'_>,
        principal: &Principal,
        now_ms: u64,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<TaskRecord, RpcError> {
        for _ in 0..CONFLICT_TRIES {
            let loaded = self
                .tasks
                .load(id, now_ms)
                .map_err(|e| store_error(e, "read"))?;
            let flaws = self.config.task_flaws;
            let (mut task, version) = match loaded {
                Some((t, v)) if flaws.any_caller || t.owner == principal.as_claim() => (t, v),
                Some(_) => return Err(not_found(trace, "the task belongs to another caller")),
                None => return Err(not_found(trace, "no such task, or it expired")),
            };
            let before = task.status;
            let mut changed = self.bring_up_to_date(&mut task, now_ms);
            let mut events = Vec::new();
            match change {
                Change::Read => {}
                Change::Answer(responses) => {
                    let (taken, ignored) = deliver(&mut task, responses, now_ms, flaws);
                    if !taken.is_empty() {
                        changed = true;
                        // The answers are part of the task before the acknowledgement goes
                        // out: the next tasks/get already sees the questions they closed.
                        self.bring_up_to_date(&mut task, now_ms);
                        events.push(TaskEvent::Answered {
                            id: id.to_owned(),
                            keys: taken,
                        });
                    }
                    if !ignored.is_empty() {
                        events.push(TaskEvent::Ignored {
                            id: id.to_owned(),
                            keys: ignored,
                        });
                    }
                }
                Change::Cancel if !task.status.is_terminal() => {
                    task.status = TaskStatus::Cancelled;
                    task.message = Some("Cancelled by the caller.".into());
                    task.pending.clear();
                    task.updated_ms = now_ms.max(task.updated_ms);
                    changed = true;
                }
                Change::Cancel => {}
            }
            if changed {
                match self.tasks.replace(&task, version) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(e) => return Err(store_error(e, "changed")),
                }
            }
            if task.status != before {
                events.push(TaskEvent::Moved {
                    id: id.to_owned(),
                    from: before,
                    to: task.status,
                });
            }
            trace.extend(events.into_iter().map(TraceEvent::Task));
            return Ok(task);
        }
        Err(RpcError::internal(
            "The task kept changing under this request; nothing was changed. Send it again.",
        ))
    }

    /// Runs the task's work up to now (see [`advance`]); a task whose tool this server does
    /// not offer fails, rather than waiting for ever.
    fn bring_up_to_date(&self, task: &mut TaskRecord, now_ms: u64) -> bool {
        match self.catalog.task_work(&task.tool) {
            Some(work) => advance(task, work, now_ms),
            None if task.status.is_terminal() => false,
            None => {
                task.status = TaskStatus::Failed;
                let e = RpcError::internal(format!(
                    "This server does not offer {}, whose work the task runs",
                    task.tool
                ));
                task.message = Some(e.message.clone());
                task.pending.clear();
                task.ending = Some(crate::tasks::record::Ending::Error(e.to_value()));
                task.updated_ms = now_ms.max(task.updated_ms);
                true
            }
        }
    }
}

/// Delivers the answers to questions now open; every other key (never asked, already
/// answered, or a finished task's) is ignored, unread. Returns the keys taken and ignored.
/// (A server built with [`TaskFlaws`] takes some of those too, as its flaw says.)
fn deliver(
    task: &mut TaskRecord,
    responses: &serde_json::Map<String, Value>,
    now_ms: u64,
    flaws: TaskFlaws,
) -> (Vec<String>, Vec<String>) {
    let (mut taken, mut ignored) = (Vec::new(), Vec::new());
    for (key, response) in responses {
        let open = !task.status.is_terminal()
            && task.pending.iter().any(|k| k == key)
            && task.answer(key).is_none();
        let retaken = flaws.retake_answers
            && task.status != TaskStatus::Cancelled
            && task.answer(key).is_some();
        let reopened = flaws.reopen_finished
            && task.status.is_terminal()
            && task.question(key).is_some()
            && task.answer(key).is_none();
        if retaken || reopened {
            // The flaw: the answer counts again, and the work runs again from it.
            task.answers.retain(|a| a.key != *key);
            task.status = TaskStatus::Working;
            task.ending = None;
        }
        if open || retaken || reopened {
            task.answers.push(Answer {
                key: key.clone(),
                response: response.clone(),
                at_ms: now_ms,
            });
            taken.push(key.clone());
        } else {
            ignored.push(key.clone());
        }
    }
    (taken, ignored)
}

fn not_found(trace: &mut Vec<TraceEvent>, detail: &str) -> RpcError {
    let e = RpcError::invalid_params(NOT_FOUND);
    trace.push(TraceEvent::Refused {
        error: e.clone(),
        detail: detail.into(),
    });
    e
}

/// The store's failure is the server's, not the caller's: -32603, and nothing changed.
fn store_error(e: TaskStoreError, what: &str) -> RpcError {
    match e {
        TaskStoreError::Full => RpcError::internal(
            "The server's memory of tasks is full; no task was created. Call again later.",
        ),
        TaskStoreError::Taken | TaskStoreError::Unavailable(_) => RpcError::internal(format!(
            "The server cannot reach its memory of tasks; no task was {what}. Send the same request again later."
        )),
    }
}

/// A task id: 16 random bytes, URL-safe Base64 (22 characters of plain ASCII, so it travels in
/// the `Mcp-Name` header as it is). Unguessable: a task id is all a caller shows.
fn task_id(entropy: &mut dyn Entropy) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let mut b = [0u8; 16];
    entropy.fill(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}
