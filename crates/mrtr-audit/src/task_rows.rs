//! The rows for a server that runs tasks (the tasks extension): another caller's task id gets
//! nothing, an answer sent again changes nothing, and a finished task takes no more input.
//! They run only against a server whose `server/discover` lists the extension, on a task
//! started for each row by a tool the audit finds: the first that answers a call declaring
//! the extension with a task (and, for the two rows that answer, whose task asks for input
//! within a few polls).

use serde_json::{json, Map, Value};

use crate::{pass, skipped, AuditError, Auditor, Judged, Status, Who, MAX_TOOL_PROBES};
use mrtr_core::client::{AgreeableHost, Host};
use mrtr_core::tasks::EXTENSION;
use mrtr_core::wire::InputRequest;

/// Polls of a task, at most, waiting for it to ask or to end.
pub const TASK_POLLS: usize = 3;
/// The longest pause between two polls, whatever the task's `pollIntervalMs` says.
const MAX_POLL_MS: u64 = 1_000;

/// The most requests the search for a task tool sends: `server/discover`, then for each tool
/// probed a call, its polls and a cancel.
pub fn search_budget() -> usize {
    1 + MAX_TOOL_PROBES * (2 + TASK_POLLS)
}

/// What the search for a tool that runs tasks found.
#[derive(Clone, Debug, Default)]
pub(crate) enum TaskSearch {
    /// Not searched yet.
    #[default]
    NotYet,
    /// None: why, in a sentence.
    Nothing(String),
    /// This tool, with these arguments; `asks`: its task asked for input within the polls.
    Found {
        name: String,
        arguments: Value,
        asks: bool,
    },
}

/// A task started for a row.
pub(crate) struct Started {
    id: String,
    poll_ms: u64,
}

/// What a task answer says, in a few words (never "the work was done": a read is not a call).
fn task_words(body: &Value) -> String {
    if let Some(e) = body.get("error") {
        return format!(
            "error {} {:?}",
            e.get("code").cloned().unwrap_or(Value::Null),
            e.get("message").and_then(Value::as_str).unwrap_or("")
        );
    }
    match body.pointer("/result/status").and_then(Value::as_str) {
        Some(s) => format!("the task, {s}"),
        None if body.get("result").is_some() => "an empty acknowledgement".into(),
        None => "no JSON-RPC response".into(),
    }
}

fn status_of(body: &Value) -> Option<&str> {
    body.pointer("/result/status").and_then(Value::as_str)
}

fn is_terminal(body: &Value) -> bool {
    matches!(
        status_of(body),
        Some("completed") | Some("cancelled") | Some("failed")
    )
}

fn open_questions(body: &Value) -> Map<String, Value> {
    match status_of(body) {
        Some("input_required") => body
            .pointer("/result/inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        _ => Map::new(),
    }
}

/// What of a task `tasks/get` shows that changed between two reads, each named: its status,
/// when it says it last changed, how it ended, and its open questions. Empty: nothing did.
fn changes(before: &Value, after: &Value) -> Vec<String> {
    let field = |b: &Value, k: &str| {
        b.pointer(&format!("/result/{k}"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    [
        "status",
        "lastUpdatedAt",
        "result",
        "error",
        "inputRequests",
    ]
    .into_iter()
    .filter(|k| field(before, k) != field(after, k))
    .map(|k| match (field(before, k), field(after, k)) {
        (Value::String(b), Value::String(a)) => format!("{k} went from {b} to {a}"),
        _ => format!("its {k} changed"),
    })
    .collect()
}

/// The honest answer to each open question, as the audit's agreeable host gives it.
fn answers_to(open: &Map<String, Value>) -> Value {
    let mut host = AgreeableHost::default();
    let mut out = Map::new();
    for (key, raw) in open {
        let answer = match InputRequest::from_value(raw) {
            Ok(r @ (InputRequest::ElicitForm { .. } | InputRequest::ElicitUrl { .. })) => {
                host.elicit(key, &r)
            }
            Ok(r @ InputRequest::Sampling { .. }) => host.sample(key, &r).unwrap_or(Value::Null),
            Ok(InputRequest::Roots) => host.roots(key),
            Err(_) => json!({"action": "accept"}),
        };
        out.insert(key.clone(), answer);
    }
    Value::Object(out)
}

/// The row's result, or (returned at once) its judgement when it cannot go on.
macro_rules! or_judged {
    ($e:expr) => {
        match $e.await? {
            Ok(v) => v,
            Err(j) => return Ok(j),
        }
    };
}

impl Auditor {
    /// A request of the extension: `params` with the audit's envelope, the extension declared.
    fn task_message(&mut self, method: &str, params: Value) -> Value {
        let mut msg = self.client.simple(method, params);
        let mut caps = self.opts.capabilities.clone();
        if let Some(c) = caps.as_object_mut() {
            let ext = c.entry("extensions").or_insert_with(|| json!({}));
            if let Some(e) = ext.as_object_mut() {
                e.insert(EXTENSION.into(), json!({}));
            }
        }
        msg["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = caps;
        msg
    }

    async fn task_request(
        &mut self,
        method: &str,
        id: &str,
        extra: Value,
        who: Who,
    ) -> Result<(Value, Value), AuditError> {
        let mut params = json!({"taskId": id});
        if let (Some(p), Value::Object(m)) = (params.as_object_mut(), extra) {
            p.extend(m);
        }
        let msg = self.task_message(method, params);
        let ex = self.send(&msg, who).await?;
        Ok((msg, ex.body))
    }

    /// Polls the caller's task (after its interval, at most [`MAX_POLL_MS`]) until `done`
    /// says so, at most [`TASK_POLLS`] times; the last answer either way.
    async fn poll_task(
        &mut self,
        task: &Started,
        done: impl Fn(&Value) -> bool,
    ) -> Result<(Value, bool), AuditError> {
        let mut last = Value::Null;
        for _ in 0..TASK_POLLS {
            self.wait_ms(task.poll_ms.min(MAX_POLL_MS)).await?;
            let (_, body) = self
                .task_request("tasks/get", &task.id, json!({}), Who::Caller)
                .await?;
            if done(&body) {
                return Ok((body, true));
            }
            let failed = body.get("error").is_some();
            last = body;
            if failed {
                break;
            }
        }
        Ok((last, false))
    }

    /// Calls `name` declaring the extension: the task it answered with, if it did.
    async fn start_task_with(
        &mut self,
        name: &str,
        arguments: &Value,
    ) -> Result<Result<Started, String>, AuditError> {
        let call = self.task_message("tools/call", json!({"name": name, "arguments": arguments}));
        let ex = self.send(&call, Who::Caller).await?;
        let result = ex.body.get("result");
        let task = result.filter(|r| r.get("resultType") == Some(&json!("task")));
        match task.and_then(|r| r.get("taskId")).and_then(Value::as_str) {
            Some(id) => Ok(Ok(Started {
                id: id.to_owned(),
                poll_ms: task
                    .and_then(|r| r.get("pollIntervalMs"))
                    .and_then(Value::as_u64)
                    .unwrap_or(MAX_POLL_MS),
            })),
            None => Ok(Err(match result {
                Some(r) => format!(
                    "resultType {}",
                    r.get("resultType").cloned().unwrap_or(Value::Null)
                ),
                None => task_words(&ex.body),
            })),
        }
    }

    /// Finds a tool that runs as a task, once per audit (the rows read the verdict).
    async fn find_task_tool(&mut self) -> Result<(), AuditError> {
        if !matches!(self.task_search, TaskSearch::NotYet) {
            return Ok(());
        }
        let discover = self.task_message("server/discover", json!({}));
        let ex = self.send(&discover, Who::Caller).await?;
        let offered = ex
            .body
            .pointer("/result/capabilities/extensions")
            .and_then(|e| e.get(EXTENSION))
            .is_some_and(Value::is_object);
        if !offered {
            self.task_search = TaskSearch::Nothing(format!(
                "server/discover does not list the tasks extension ({EXTENSION})"
            ));
            return Ok(());
        }
        let mut first_task = None;
        let tools = self.tools.clone();
        for (name, schema) in tools.into_iter().take(MAX_TOOL_PROBES) {
            let arguments = crate::arguments_for(&schema);
            let Ok(task) = self.start_task_with(&name, &arguments).await? else {
                continue;
            };
            let (last, _) = self
                .poll_task(&task, |b| {
                    status_of(b) == Some("input_required") || is_terminal(b)
                })
                .await?;
            self.task_request("tasks/cancel", &task.id, json!({}), Who::Caller)
                .await?;
            // Asking is what the answering rows need; ending at once is not asking.
            if status_of(&last) == Some("input_required") {
                self.task_search = TaskSearch::Found {
                    name,
                    arguments,
                    asks: true,
                };
                return Ok(());
            }
            first_task.get_or_insert((name, arguments));
        }
        self.task_search = match first_task {
            Some((name, arguments)) => TaskSearch::Found {
                name,
                arguments,
                asks: false,
            },
            None => TaskSearch::Nothing(
                "no tool answered a call declaring the tasks extension with a task".into(),
            ),
        };
        Ok(())
    }

    /// A fresh task of the tool the search found (one that asks, when `asking`), or the
    /// row's judgement when there is none.
    async fn row_task(&mut self, asking: bool) -> Result<Result<Started, Judged>, AuditError> {
        self.find_task_tool().await?;
        let (name, arguments) = match &self.task_search {
            TaskSearch::Found { asks: false, .. } if asking => {
                return Ok(Err(skipped(&format!(
                "no task asked for input within {TASK_POLLS} polls, so there is nothing to answer"
            ))))
            }
            TaskSearch::Found {
                name, arguments, ..
            } => (name.clone(), arguments.clone()),
            TaskSearch::Nothing(why) => return Ok(Err(skipped(&why.clone()))),
            TaskSearch::NotYet => return Ok(Err(skipped("the search for a task did not run"))),
        };
        match self.start_task_with(&name, &arguments).await? {
            Ok(t) => Ok(Ok(t)),
            Err(got) => Ok(Err((
                Status::Fail,
                format!("{name} answered with a task before, and this time with {got}"),
                None,
                None,
            ))),
        }
    }

    /// Polls until the task asks; the questions, or the row's judgement.
    async fn asking(
        &mut self,
        task: &Started,
    ) -> Result<Result<Map<String, Value>, Judged>, AuditError> {
        let (last, asked) = self
            .poll_task(task, |b| status_of(b) == Some("input_required"))
            .await?;
        if asked {
            Ok(Ok(open_questions(&last)))
        } else {
            Ok(Err(skipped(&format!(
                "the task did not ask this time within {TASK_POLLS} polls (last: {})",
                task_words(&last)
            ))))
        }
    }

    /// `task-other-caller`: another caller's `tasks/get`, `tasks/update` and `tasks/cancel`
    /// for the caller's task are refused, and the task stays as it was.
    pub(crate) async fn task_other_caller(&mut self) -> Result<Judged, AuditError> {
        if !self.callers.per_request {
            return Ok(skipped(
                "one principal here (stdio: the process user), so there is nobody else to send as",
            ));
        }
        if !self.callers.other_token {
            return Ok(skipped(
                "no second caller: give another caller's token (--other-token), not the caller's",
            ));
        }
        let task = or_judged!(self.row_task(false));
        let mut last = None;
        for (method, extra) in [
            ("tasks/get", json!({})),
            ("tasks/update", json!({"inputResponses": {}})),
            ("tasks/cancel", json!({})),
        ] {
            let (msg, body) = self
                .task_request(method, &task.id, extra, Who::Other)
                .await?;
            if body.get("error").is_none() {
                return Ok((
                    Status::Fail,
                    format!(
                        "sent {method} for the caller's task with another caller's token; got {}",
                        task_words(&body)
                    ),
                    Some(msg),
                    Some(body),
                ));
            }
            last = Some((msg, body));
        }
        let (_, mine) = self
            .task_request("tasks/get", &task.id, json!({}), Who::Caller)
            .await?;
        if mine.get("error").is_some() || status_of(&mine) == Some("cancelled") {
            return Ok((
                Status::Fail,
                format!(
                    "after another caller's requests, the caller's own tasks/get got {}",
                    task_words(&mine)
                ),
                None,
                Some(mine),
            ));
        }
        self.task_request("tasks/cancel", &task.id, json!({}), Who::Caller)
            .await?;
        let (msg, body) = last.unwrap_or_default();
        Ok((
            Status::Pass,
            format!(
                "another caller's tasks/get, tasks/update and tasks/cancel were each refused (the last got {}); the caller's task is untouched: {}",
                task_words(&body),
                task_words(&mine)
            ),
            Some(msg),
            Some(body),
        ))
    }

    /// `task-answer-replayed`: the caller answers the task's questions; once the task has
    /// moved on, the same answers sent again change nothing.
    pub(crate) async fn task_answer_replayed(&mut self) -> Result<Judged, AuditError> {
        let task = or_judged!(self.row_task(true));
        let open = or_judged!(self.asking(&task));
        let answers = json!({"inputResponses": answers_to(&open)});
        self.task_request("tasks/update", &task.id, answers.clone(), Who::Caller)
            .await?;
        let keys: Vec<&String> = open.keys().collect();
        let (before, settled) = self
            .poll_task(&task, |b| {
                is_terminal(b)
                    || (status_of(b) == Some("input_required")
                        && open_questions(b).keys().all(|k| !keys.contains(&k)))
            })
            .await?;
        if !settled {
            self.task_request("tasks/cancel", &task.id, json!({}), Who::Caller)
                .await?;
            return Ok(skipped(&format!(
                "after its answers the task did not end nor ask anew within {TASK_POLLS} polls (last: {})",
                task_words(&before)
            )));
        }
        let (msg, _) = self
            .task_request("tasks/update", &task.id, answers, Who::Caller)
            .await?;
        let (_, after) = self
            .task_request("tasks/get", &task.id, json!({}), Who::Caller)
            .await?;
        if !is_terminal(&before) {
            self.task_request("tasks/cancel", &task.id, json!({}), Who::Caller)
                .await?;
        }
        let changed = changes(&before, &after);
        if !changed.is_empty() {
            return Ok((
                Status::Fail,
                format!(
                    "answered {}; the task moved on ({}); the same answers sent again changed it: {}",
                    keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", "),
                    task_words(&before),
                    changed.join("; ")
                ),
                Some(msg),
                Some(after),
            ));
        }
        Ok(pass(format!(
            "answered {}; the task moved on ({}); the same answers sent again changed nothing",
            keys.iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            task_words(&after)
        )))
    }

    /// `task-finished-input`: the caller cancels a task that asks; once it has ended, answers
    /// to the questions it had open change nothing.
    pub(crate) async fn task_finished_input(&mut self) -> Result<Judged, AuditError> {
        let task = or_judged!(self.row_task(true));
        let open = or_judged!(self.asking(&task));
        self.task_request("tasks/cancel", &task.id, json!({}), Who::Caller)
            .await?;
        let (ended, settled) = self.poll_task(&task, is_terminal).await?;
        if !settled {
            return Ok(skipped(&format!(
                "the task did not end within {TASK_POLLS} polls after tasks/cancel (cancelling is cooperative; last: {})",
                task_words(&ended)
            )));
        }
        let answers = json!({"inputResponses": answers_to(&open)});
        let (msg, _) = self
            .task_request("tasks/update", &task.id, answers, Who::Caller)
            .await?;
        let (_, after) = self
            .task_request("tasks/get", &task.id, json!({}), Who::Caller)
            .await?;
        let changed = changes(&ended, &after);
        if !changed.is_empty() {
            return Ok((
                Status::Fail,
                format!(
                    "cancelled the task ({}); answers to its questions sent after that changed it: {}",
                    task_words(&ended),
                    changed.join("; ")
                ),
                Some(msg),
                Some(after),
            ));
        }
        Ok(pass(format!(
            "cancelled the task ({}); answers to its questions sent after that changed nothing",
            task_words(&after)
        )))
    }
}
