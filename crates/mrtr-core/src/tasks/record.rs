//! A task as the server keeps it, and the shapes the wire shows of it.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::wire::{ClientCapabilities, InputRequest};

/// Where a task is in its life. The terminal three never change again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The work is going on.
    Working,
    /// The work waits for answers: `tasks/get` lists the questions in `inputRequests`.
    InputRequired,
    /// The work finished with a result (a tool result with `isError: true` included).
    Completed,
    /// The caller cancelled the task before it finished.
    Cancelled,
    /// The work ended with a JSON-RPC error.
    Failed,
}

impl TaskStatus {
    /// Every status, in the order of a task's life.
    pub const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Cancelled,
        TaskStatus::Failed,
    ];

    /// The value as sent in `status`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Cancelled => "cancelled",
            TaskStatus::Failed => "failed",
        }
    }

    /// Reads a `status` value; `None` for anything the extension does not define.
    pub fn parse(s: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// True once the task can no longer change.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Cancelled | TaskStatus::Failed
        )
    }
}

/// One answer a `tasks/update` delivered, as sent, and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The `inputRequests` key it answers.
    pub key: String,
    /// The bare result object, exactly as the client sent it (read by the work, never trusted).
    pub response: Value,
    /// When it arrived (milliseconds, the server's clock).
    pub at_ms: u64,
}

/// A question the task asked, under its key, with its method (an answer of another kind does
/// not answer it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asked {
    /// Its `inputRequests` key: unique over the task's whole life.
    pub key: String,
    /// The request as sent (`{method, params}`).
    pub request: Value,
}

/// How a finished task ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The call's result, exactly as the call would have returned it (`resultType` included).
    Result(Value),
    /// The JSON-RPC error the work ended with.
    Error(Value),
}

/// A task as the store keeps it: everything needed to run its work one step further on any
/// replica that shares the store (the work itself is the catalogue's, found by the tool).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskRecord {
    /// Its id: unguessable, plain ASCII (it travels in the `Mcp-Name` header).
    pub id: String,
    /// Who created it (a ticket's `sub`: `None` is anonymous); only they may read or change it.
    pub owner: Option<String>,
    /// The tool whose work it runs.
    pub tool: String,
    /// What the tool handed its work when it started the task.
    pub seed: Value,
    /// What the creating request declared it can answer (a task asks only for those kinds).
    pub capabilities: Value,
    /// When it was created (milliseconds).
    pub created_ms: u64,
    /// When its status, message or questions last changed.
    pub updated_ms: u64,
    /// How long after creation it is kept (`ttlMs`).
    pub ttl_ms: u64,
    /// How often a client should poll (`pollIntervalMs`).
    pub poll_ms: u64,
    /// Where it is.
    pub status: TaskStatus,
    /// A sentence on where it is, for people (`statusMessage`).
    pub message: Option<String>,
    /// Every question ever asked, in order.
    pub asked: Vec<Asked>,
    /// The keys asked and not yet answered, in order: what `inputRequests` lists.
    pub pending: Vec<String>,
    /// Every answer delivered, in order.
    pub answers: Vec<Answer>,
    /// How it ended, once terminal.
    pub ending: Option<Ending>,
}

impl TaskRecord {
    /// The capabilities of the request that created it.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        ClientCapabilities::from_value(&self.capabilities)
    }

    /// The last moment it is kept: after this it is gone (`tasks/get` says not found).
    pub fn expires_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }

    /// True once its time to live has passed.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_ms()
    }

    /// The answer delivered under `key`, if any.
    pub fn answer(&self, key: &str) -> Option<&Answer> {
        self.answers.iter().find(|a| a.key == key)
    }

    /// The question asked under `key`, if any.
    pub fn question(&self, key: &str) -> Option<&Asked> {
        self.asked.iter().find(|a| a.key == key)
    }

    /// The questions now open, each under its key, as `inputRequests` lists them.
    pub fn input_requests(&self) -> Map<String, Value> {
        self.pending
            .iter()
            .filter_map(|k| self.question(k).map(|q| (k.clone(), q.request.clone())))
            .collect()
    }

    /// The open questions, read back as requests.
    pub fn pending_requests(&self) -> Vec<(String, InputRequest)> {
        self.pending
            .iter()
            .filter_map(|k| {
                let q = self.question(k)?;
                Some((k.clone(), InputRequest::from_value(&q.request).ok()?))
            })
            .collect()
    }

    /// The `Task` fields every task message carries: id, status, message, times, ttl, poll.
    fn task_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), json!(self.id));
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(msg) = &self.message {
            m.insert("statusMessage".into(), json!(msg));
        }
        m.insert("createdAt".into(), json!(iso8601(self.created_ms)));
        m.insert("lastUpdatedAt".into(), json!(iso8601(self.updated_ms)));
        m.insert("ttlMs".into(), json!(self.ttl_ms));
        m.insert("pollIntervalMs".into(), json!(self.poll_ms));
        m
    }

    /// The `CreateTaskResult` a call answers with: `resultType: "task"` and the task's
    /// fields, flat. Never a result, an error, questions or a `requestState`: those are read
    /// with `tasks/get`.
    pub fn create_result(&self) -> Value {
        let mut m = Map::new();
        m.insert("resultType".into(), json!("task"));
        m.extend(self.task_fields());
        Value::Object(m)
    }

    /// What `tasks/get` answers (`resultType: "complete"` and the detailed task): the open
    /// questions while it waits, the result or the error once it ended.
    pub fn detailed(&self) -> Value {
        let mut m = Map::new();
        m.insert("resultType".into(), json!("complete"));
        m.extend(self.task_fields());
        match (&self.status, &self.ending) {
            (TaskStatus::InputRequired, _) => {
                m.insert("inputRequests".into(), Value::Object(self.input_requests()));
            }
            (TaskStatus::Completed, Some(Ending::Result(r))) => {
                m.insert("result".into(), r.clone());
            }
            (TaskStatus::Failed, Some(Ending::Error(e))) => {
                m.insert("error".into(), e.clone());
            }
            _ => {}
        }
        Value::Object(m)
    }

    /// The record as a store keeps it (JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a task record is plain JSON")
    }

    /// A record read back from a store; `Err` for anything that is not one, whole.
    pub fn from_json(text: &str) -> Result<TaskRecord, String> {
        serde_json::from_str(text).map_err(|e| format!("not a task record: {e}"))
    }

    /// The error a failed task ended with.
    pub fn error(&self) -> Option<RpcError> {
        match &self.ending {
            Some(Ending::Error(e)) => RpcError::from_value(e),
            _ => None,
        }
    }
}

/// A time as the extension sends it: ISO 8601 in UTC with milliseconds
/// (`2026-12-04T15:52:10.123Z`).
pub fn iso8601(ms: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TaskRecord {
        TaskRecord {
            id: "t1".into(),
            owner: Some("bob".into()),
            tool: "slow_compute".into(),
            seed: json!({"seconds": 2}),
            capabilities: json!({}),
            created_ms: 1_800_000_000_000,
            updated_ms: 1_800_000_000_500,
            ttl_ms: 60_000,
            poll_ms: 1_000,
            status: TaskStatus::Working,
            message: None,
            asked: Vec::new(),
            pending: Vec::new(),
            answers: Vec::new(),
            ending: None,
        }
    }

    #[test]
    fn statuses_read_back_and_only_three_are_terminal() {
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(TaskStatus::parse("done"), None);
        let terminal: Vec<_> = TaskStatus::ALL
            .into_iter()
            .filter(|s| s.is_terminal())
            .collect();
        assert_eq!(
            terminal,
            [
                TaskStatus::Completed,
                TaskStatus::Cancelled,
                TaskStatus::Failed
            ]
        );
    }

    #[test]
    fn a_create_result_is_flat_and_carries_no_result_questions_or_ticket() {
        let r = record().create_result();
        assert_eq!(r["resultType"], "task");
        assert_eq!(r["taskId"], "t1");
        assert_eq!(r["createdAt"], "2027-01-15T08:00:00.000Z");
        assert_eq!(r["lastUpdatedAt"], "2027-01-15T08:00:00.500Z");
        assert_eq!(r["ttlMs"], 60_000);
        assert_eq!(r["pollIntervalMs"], 1_000);
        for absent in [
            "task",
            "result",
            "error",
            "inputRequests",
            "requestState",
            "ttl",
            "pollInterval",
        ] {
            assert!(r.get(absent).is_none(), "{absent} in {r}");
        }
    }

    #[test]
    fn tasks_get_shows_questions_while_waiting_and_the_ending_once_done() {
        let mut t = record();
        t.status = TaskStatus::InputRequired;
        t.asked.push(Asked {
            key: "confirm".into(),
            request: json!({"method": "roots/list"}),
        });
        t.pending.push("confirm".into());
        let d = t.detailed();
        assert_eq!(d["resultType"], "complete");
        assert_eq!(d["inputRequests"]["confirm"]["method"], "roots/list");
        assert!(d.get("requestState").is_none());
        t.status = TaskStatus::Failed;
        t.pending.clear();
        t.ending = Some(Ending::Error(json!({"code": -32603, "message": "x"})));
        let d = t.detailed();
        assert_eq!(d["error"]["code"], -32603);
        assert!(d.get("result").is_none() && d.get("inputRequests").is_none());
    }

    #[test]
    fn a_record_survives_its_store_and_nothing_else_reads_as_one() {
        let t = record();
        assert_eq!(TaskRecord::from_json(&t.to_json()).unwrap(), t);
        assert!(TaskRecord::from_json("{}").is_err());
        assert!(TaskRecord::from_json(&t.to_json().replace("\"tool\"", "\"tools\"")).is_err());
    }
}
