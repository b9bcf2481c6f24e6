//! The client engine, sans I/O: builds each request with its envelope, and on
//! `input_required` asks the host, then retries with a new id, the answers keyed like the
//! questions and the ticket byte for byte.

use serde_json::{json, Map, Value};

use crate::answered::{classify, created_task, Answered};
use crate::error::{
    RpcError, HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::wire::{request, ClientCapabilities, Envelope, InputRequest, RequestId, MODERN_VERSION};

/// Rounds before the client gives up, as the SDKs do.
pub const MAX_ROUNDS: u32 = 10;

/// The person and model behind the client: answers embedded requests.
pub trait Host {
    /// Answers an elicitation with a bare `ElicitResult` (`{"action": …, "content"?: …}`).
    fn elicit(&mut self, key: &str, request: &InputRequest) -> Value;
    /// Answers a sampling request with a `CreateMessageResult`, or `None` to decline (there
    /// is no decline shape: the client simply stops).
    fn sample(&mut self, key: &str, request: &InputRequest) -> Option<Value>;
    /// Lists the client's roots.
    fn roots(&mut self, key: &str) -> Value;
}

/// A host that says yes: accepts every form with the values given (or defaults from the
/// schema), answers sampling with fixed text, and offers one root.
#[derive(Clone, Debug, Default)]
pub struct AgreeableHost {
    /// Form values to fill in, by property name.
    pub values: Map<String, Value>,
    /// Decline instead of accepting.
    pub decline: bool,
}

impl AgreeableHost {
    /// A host that accepts, filling forms from `values` (a JSON object of property names;
    /// anything else fills nothing).
    pub fn with(values: Value) -> AgreeableHost {
        AgreeableHost {
            values: values.as_object().cloned().unwrap_or_default(),
            decline: false,
        }
    }
}

impl Host for AgreeableHost {
    fn elicit(&mut self, _key: &str, request: &InputRequest) -> Value {
        if self.decline {
            return json!({"action": "decline"});
        }
        match request {
            InputRequest::ElicitForm { schema, .. } => {
                let mut content = Map::new();
                if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                    for (name, prop) in props {
                        let v = self.values.get(name).cloned().unwrap_or_else(|| {
                            match prop.get("type").and_then(Value::as_str) {
                                Some("boolean") => json!(true),
                                Some("number") | Some("integer") => json!(1),
                                _ => json!("yes"),
                            }
                        });
                        content.insert(name.clone(), v);
                    }
                }
                json!({"action": "accept", "content": content})
            }
            _ => json!({"action": "accept"}),
        }
    }

    fn sample(&mut self, _key: &str, _request: &InputRequest) -> Option<Value> {
        Some(
            json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "mrtr-lab-model", "stopReason": "endTurn"}),
        )
    }

    fn roots(&mut self, _key: &str) -> Value {
        json!({"roots": [{"uri": "file:///workspace", "name": "workspace"}]})
    }
}

/// Why a call ended without a result.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// The server answered with a JSON-RPC error.
    Rpc(RpcError),
    /// The response was not valid for this call.
    Protocol(String),
    /// More than [`MAX_ROUNDS`] rounds of `input_required`.
    TooManyRounds,
    /// The host declined a request that has no decline shape (sampling).
    Declined(String),
    /// The call ran as a task, and the task was cancelled before it finished.
    Cancelled,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "server error {e}"),
            CallError::Protocol(m) => write!(f, "protocol error: {m}"),
            CallError::TooManyRounds => {
                write!(f, "gave up after {MAX_ROUNDS} rounds of input_required")
            }
            CallError::Declined(k) => write!(f, "the host declined {k:?}"),
            CallError::Cancelled => write!(f, "the task was cancelled before it finished"),
        }
    }
}

/// What to do next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send this retry.
    Retry(Value),
    /// The call completed with this result.
    Complete(Value),
    /// The call failed; nothing more is sent for it.
    Failed(CallError),
    /// The call goes on as a task: send this task request (a poll, or the answers) once
    /// `after_ms` milliseconds have passed (the task's `pollIntervalMs`; 0 to send at once).
    Task {
        /// How long to wait first.
        after_ms: u64,
        /// `tasks/get` or `tasks/update`.
        request: Value,
    },
}

/// One logical call across its rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    /// The JSON-RPC method, e.g. `tools/call`.
    pub method: String,
    /// The original params, without `_meta`, `inputResponses` or `requestState`.
    pub params: Map<String, Value>,
    /// Which request of the call is out: 1 for the first, one more for each retry.
    pub round: u32,
    /// The id of the request now out (each retry gets a new one).
    pub current_id: RequestId,
    /// Every id used so far, oldest first.
    pub ids: Vec<RequestId>,
    /// Set once the server answered with a task: the call goes on through it.
    pub task: Option<FollowedTask>,
}

/// A task the call became, as the client follows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FollowedTask {
    /// Its id.
    pub id: String,
    /// Its status when last read.
    pub status: String,
    /// How often the server asks to be polled (`pollIntervalMs`).
    pub poll_ms: u64,
    /// How long it is kept (`ttlMs`; `None`: unlimited).
    pub ttl_ms: Option<u64>,
    /// How long the client has waited between polls so far.
    pub waited_ms: u64,
    /// Keys already answered: a question is never answered twice (polls repeat the open ones
    /// until the server has taken the answer).
    pub answered: Vec<String>,
    /// Polls sent.
    pub polls: u32,
    /// What the request now out is.
    pub out: TaskRequest,
}

/// Which task request is out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskRequest {
    /// `tasks/get`.
    Poll,
    /// `tasks/update` with answers.
    Answers,
}

/// Polls allowed for a task whose time to live is unlimited, before the client gives up.
pub const MAX_POLLS: u32 = 10_000;
/// The poll interval used when a task names none, and the bounds put on the one it names
/// (a server cannot make the client spin, nor wait longer than a minute between polls).
pub const DEFAULT_POLL_MS: u64 = 1_000;
const POLL_BOUNDS_MS: (u64, u64) = (50, 60_000);

/// A 2026-07-28 client.
#[derive(Clone, Debug)]
pub struct Client {
    /// The `_meta` every request carries: protocol version, capabilities, client info.
    pub envelope: Envelope,
    next_id: i64,
}

impl Client {
    /// A client declaring `capabilities`, named `name` `version` in its client info, whose
    /// ids start at 1.
    pub fn new(capabilities: ClientCapabilities, name: &str, version: &str) -> Client {
        Client {
            envelope: Envelope::new(
                capabilities,
                Some(json!({"name": name, "version": version})),
            ),
            next_id: 1,
        }
    }

    /// Starts ids at `first` (the page uses this to match the lesson's numbering).
    pub fn with_first_id(mut self, first: i64) -> Client {
        self.next_id = first;
        self
    }

    /// The capabilities every request declares.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.envelope.capabilities
    }

    fn fresh_id(&mut self) -> RequestId {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        id
    }

    fn build(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
        extra: Map<String, Value>,
    ) -> (RequestId, Value) {
        let mut p = Map::new();
        p.insert("_meta".into(), self.envelope.to_meta());
        for (k, v) in params {
            p.insert(k.clone(), v.clone());
        }
        for (k, v) in extra {
            p.insert(k, v);
        }
        let id = self.fresh_id();
        let msg = request(&id, method, Some(Value::Object(p)));
        (id, msg)
    }

    /// A request that is not part of a round trip (`server/discover`, `tools/list`).
    pub fn simple(&mut self, method: &str, params: Value) -> Value {
        let params = params.as_object().cloned().unwrap_or_default();
        self.build(method, &params, Map::new()).1
    }

    /// Starts a call; returns its state and the first request.
    pub fn begin(&mut self, method: &str, params: Value) -> (PendingCall, Value) {
        let mut params = params.as_object().cloned().unwrap_or_default();
        for k in ["_meta", "inputResponses", "requestState"] {
            params.remove(k);
        }
        let (id, msg) = self.build(method, &params, Map::new());
        (
            PendingCall {
                method: method.to_owned(),
                params,
                round: 1,
                current_id: id.clone(),
                ids: vec![id],
                task: None,
            },
            msg,
        )
    }

    /// Reads the response to the call's current request and decides the next step.
    pub fn on_response(
        &mut self,
        call: &mut PendingCall,
        response: &Value,
        host: &mut dyn Host,
    ) -> Step {
        if response.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Step::Failed(CallError::Protocol("\"jsonrpc\" must be \"2.0\"".into()));
        }
        if call.task.is_some() {
            return self.follow_task(call, response, host);
        }
        if self.envelope.capabilities.tasks {
            if let Some(created) = created_task(response) {
                if let Err(why) = answers_current(call, response) {
                    return Step::Failed(CallError::Protocol(why));
                }
                return self.start_following(call, created);
            }
        }
        let (result, asks) = match classify(response) {
            Answered::Error(error) => return Step::Failed(CallError::Rpc(error)),
            Answered::Malformed(why) => return Step::Failed(CallError::Protocol(why)),
            Answered::Complete(result) => (result, false),
            Answered::InputRequired(result) => (result, true),
        };
        if let Err(why) = answers_current(call, response) {
            return Step::Failed(CallError::Protocol(why));
        }
        if !asks {
            return Step::Complete(result);
        }
        if call.round >= MAX_ROUNDS {
            return Step::Failed(CallError::TooManyRounds);
        }
        let mut extra = Map::new();
        match result.get("inputRequests") {
            None | Some(Value::Null) => {}
            Some(Value::Object(reqs)) => {
                let mut answers = Map::new();
                for (key, raw) in reqs {
                    match answer_one(key, raw, host) {
                        Ok(a) => answers.insert(key.clone(), a),
                        Err(e) => return Step::Failed(e),
                    };
                }
                if !answers.is_empty() {
                    extra.insert("inputResponses".into(), Value::Object(answers));
                }
            }
            Some(_) => {
                return Step::Failed(CallError::Protocol(
                    "inputRequests must be an object".into(),
                ))
            }
        }
        match result.get("requestState") {
            None | Some(Value::Null) => {}
            // Echoed exactly: never parsed, trimmed or re-encoded.
            Some(Value::String(s)) => {
                extra.insert("requestState".into(), Value::String(s.clone()));
            }
            Some(_) => {
                return Step::Failed(CallError::Protocol("requestState must be a string".into()))
            }
        }
        // Nothing to answer and no state to carry: the retry would be the same request
        // again, and so would the next. Say so instead of looping.
        if extra.is_empty() {
            return Step::Failed(CallError::Protocol(
                        "input_required with no inputRequests to answer and no requestState: retrying would only repeat the request".into(),
                    ));
        }
        let (id, msg) = self.build(&call.method, &call.params, extra);
        call.round += 1;
        call.current_id = id.clone();
        call.ids.push(id);
        Step::Retry(msg)
    }

    /// Starts following the task a call was answered with: poll it (at once if it already
    /// waits for input).
    fn start_following(&mut self, call: &mut PendingCall, created: &Value) -> Step {
        let Some(id) = created.get("taskId").and_then(Value::as_str) else {
            return Step::Failed(CallError::Protocol(
                "a task result needs a string \"taskId\"".into(),
            ));
        };
        let status = created
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("working")
            .to_owned();
        let mut task = FollowedTask {
            id: id.to_owned(),
            status,
            poll_ms: poll_interval(created),
            ttl_ms: created.get("ttlMs").and_then(Value::as_u64),
            waited_ms: 0,
            answered: Vec::new(),
            polls: 0,
            out: TaskRequest::Poll,
        };
        let after_ms = if task.status == "working" {
            task.poll_ms
        } else {
            0
        };
        let step = self.poll(call, &mut task, after_ms);
        call.task = Some(task);
        step
    }

    /// Reads the answer to a task request and decides the next one: poll again, answer the
    /// open questions, or end with the task's result, error or cancellation.
    fn follow_task(
        &mut self,
        call: &mut PendingCall,
        response: &Value,
        host: &mut dyn Host,
    ) -> Step {
        let Some(mut task) = call.task.take() else {
            return Step::Failed(CallError::Protocol("no task is being followed".into()));
        };
        let step = self.follow_task_step(call, &mut task, response, host);
        call.task = Some(task);
        step
    }

    fn follow_task_step(
        &mut self,
        call: &mut PendingCall,
        task: &mut FollowedTask,
        response: &Value,
        host: &mut dyn Host,
    ) -> Step {
        if let Err(why) = answers_current(call, response) {
            return Step::Failed(CallError::Protocol(why));
        }
        let result = match classify(response) {
            Answered::Complete(r) => r,
            Answered::Error(e) => return Step::Failed(CallError::Rpc(e)),
            Answered::InputRequired(_) => {
                return Step::Failed(CallError::Protocol(
                    "a task request was answered with input_required; a task's questions come in tasks/get".into(),
                ))
            }
            Answered::Malformed(why) => return Step::Failed(CallError::Protocol(why)),
        };
        if task.out == TaskRequest::Answers {
            // The acknowledgement: read the task again (its answered questions are closed).
            return self.poll(call, task, 0);
        }
        if result.get("taskId").and_then(Value::as_str) != Some(task.id.as_str()) {
            return Step::Failed(CallError::Protocol(format!(
                "tasks/get for {} answered about another task",
                task.id
            )));
        }
        task.poll_ms = poll_interval(&result);
        let status = result.get("status").and_then(Value::as_str).unwrap_or("");
        task.status = status.to_owned();
        match status {
            "working" => self.poll(call, task, task.poll_ms),
            "input_required" => self.answer_task(call, task, &result, host),
            "completed" => match result.get("result") {
                Some(r @ Value::Object(_)) => Step::Complete(r.clone()),
                _ => Step::Failed(CallError::Protocol(
                    "a completed task needs its \"result\"".into(),
                )),
            },
            "failed" => match result
                .get("error")
                .and_then(crate::error::RpcError::from_value)
            {
                Some(e) => Step::Failed(CallError::Rpc(e)),
                None => Step::Failed(CallError::Protocol(
                    "a failed task needs its \"error\" {code, message}".into(),
                )),
            },
            "cancelled" => Step::Failed(CallError::Cancelled),
            other => Step::Failed(CallError::Protocol(format!(
                "unknown task status {other:?}"
            ))),
        }
    }

    /// Answers the task's open questions not answered before (a poll may repeat one the
    /// server has not taken yet: never answer it twice), or polls again when none is new.
    fn answer_task(
        &mut self,
        call: &mut PendingCall,
        task: &mut FollowedTask,
        result: &Value,
        host: &mut dyn Host,
    ) -> Step {
        let Some(open) = result.get("inputRequests").and_then(Value::as_object) else {
            return Step::Failed(CallError::Protocol(
                "a task in input_required needs \"inputRequests\"".into(),
            ));
        };
        let mut answers = Map::new();
        for (key, raw) in open {
            if task.answered.contains(key) {
                continue;
            }
            match answer_one(key, raw, host) {
                Ok(a) => {
                    answers.insert(key.clone(), a);
                }
                Err(e) => return Step::Failed(e),
            }
        }
        if answers.is_empty() {
            return self.poll(call, task, task.poll_ms);
        }
        task.answered.extend(answers.keys().cloned());
        task.out = TaskRequest::Answers;
        let mut params = Map::new();
        params.insert("taskId".into(), json!(task.id));
        params.insert("inputResponses".into(), Value::Object(answers));
        let (id, msg) = self.build("tasks/update", &params, Map::new());
        call.current_id = id.clone();
        call.ids.push(id);
        Step::Task {
            after_ms: 0,
            request: msg,
        }
    }

    /// `tasks/get` for the task, after `after_ms`, unless the task has outlived its time to
    /// live or the client its polls.
    fn poll(&mut self, call: &mut PendingCall, task: &mut FollowedTask, after_ms: u64) -> Step {
        task.waited_ms = task.waited_ms.saturating_add(after_ms);
        task.polls += 1;
        if task.ttl_ms.is_some_and(|ttl| task.waited_ms > ttl) {
            return Step::Failed(CallError::Protocol(format!(
                "the task {} did not finish within its ttlMs",
                task.id
            )));
        }
        if task.polls > MAX_POLLS {
            return Step::Failed(CallError::Protocol(format!(
                "gave up on the task {} after {MAX_POLLS} polls",
                task.id
            )));
        }
        task.out = TaskRequest::Poll;
        let (id, msg) = self.task_request("tasks/get", &task.id);
        call.current_id = id.clone();
        call.ids.push(id);
        Step::Task {
            after_ms,
            request: msg,
        }
    }

    /// A `tasks/get` or `tasks/cancel` for `task_id` (the page's cancel button, a CLI's ^C).
    pub fn task_request(&mut self, method: &str, task_id: &str) -> (RequestId, Value) {
        let mut params = Map::new();
        params.insert("taskId".into(), json!(task_id));
        self.build(method, &params, Map::new())
    }

    /// Runs a whole call against `send` (one request in, one response out). A task's polls
    /// follow one another without waiting: a driver with a clock uses [`Client::run_waiting`].
    pub fn run(
        &mut self,
        method: &str,
        params: Value,
        host: &mut dyn Host,
        send: &mut dyn FnMut(&Value) -> Result<Value, String>,
    ) -> (Vec<Value>, Result<Value, CallError>) {
        self.run_waiting(method, params, host, send, &mut |_| {})
    }

    /// [`Client::run`], calling `wait` with each pause a task asks for before its next poll.
    pub fn run_waiting(
        &mut self,
        method: &str,
        params: Value,
        host: &mut dyn Host,
        send: &mut dyn FnMut(&Value) -> Result<Value, String>,
        wait: &mut dyn FnMut(u64),
    ) -> (Vec<Value>, Result<Value, CallError>) {
        let mut log = Vec::new();
        let (mut call, mut msg) = self.begin(method, params);
        loop {
            log.push(msg.clone());
            let resp = match send(&msg) {
                Ok(r) => r,
                Err(e) => return (log, Err(CallError::Protocol(e))),
            };
            log.push(resp.clone());
            match self.on_response(&mut call, &resp, host) {
                Step::Retry(next) => msg = next,
                Step::Task { after_ms, request } => {
                    wait(after_ms);
                    msg = request;
                }
                Step::Complete(r) => return (log, Ok(r)),
                Step::Failed(e) => return (log, Err(e)),
            }
        }
    }
}

/// The response must answer the request now out: same id.
fn answers_current(call: &PendingCall, response: &Value) -> Result<(), String> {
    let Some(id) = response.get("id").and_then(RequestId::from_value) else {
        return Err("a response needs an \"id\"".into());
    };
    if id != call.current_id {
        return Err(format!(
            "response id {id} does not match request id {}",
            call.current_id
        ));
    }
    Ok(())
}

/// The task's `pollIntervalMs`, kept within bounds (the default when absent).
fn poll_interval(task: &Value) -> u64 {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_POLL_MS)
        .clamp(POLL_BOUNDS_MS.0, POLL_BOUNDS_MS.1)
}

/// The host's answer to one embedded request (the same in an MRTR round and in a task).
fn answer_one(key: &str, raw: &Value, host: &mut dyn Host) -> Result<Value, CallError> {
    let req = InputRequest::from_value(raw)
        .map_err(|e| CallError::Protocol(format!("inputRequests[{key:?}]: {e}")))?;
    Ok(match &req {
        InputRequest::ElicitForm { .. } | InputRequest::ElicitUrl { .. } => host.elicit(key, &req),
        InputRequest::Sampling { .. } => host
            .sample(key, &req)
            .ok_or_else(|| CallError::Declined(key.to_owned()))?,
        InputRequest::Roots => host.roots(key),
    })
}

/// What a `server/discover` probe says about a stdio server's era (the spec's backward
/// compatibility rules for a client that speaks both).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeVerdict {
    /// A `DiscoverResult` listing the modern version, or an error only a 2026-07-28 server
    /// sends (-32020 header mismatch, -32021 missing capability): speak it.
    Modern,
    /// -32022 naming the modern version this client speaks: probe again with it. A modern
    /// error means a modern server, so this is never a reason to fall back.
    RetryWith(String),
    /// A modern server with no modern version in common: an error, not a fallback.
    NoCommonVersion(Vec<String>),
    /// Any other error, no answer in time, or a result without a modern version: legacy.
    Legacy,
}

/// True for a protocol revision with per-request `_meta` (2026-07-28 and later). Revisions
/// are dates, so they compare as text.
pub fn is_modern_version(v: &str) -> bool {
    v.len() == 10 && v >= MODERN_VERSION
}

/// Classifies the answer to a `server/discover` probe; `None` is no answer in time.
pub fn classify_probe(response: Option<&Value>) -> ProbeVerdict {
    let Some(response) = response else {
        return ProbeVerdict::Legacy;
    };
    let versions = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let error = match classify(response) {
        Answered::Complete(result) | Answered::InputRequired(result) => {
            let supported = versions(result.get("supportedVersions"));
            return if supported.iter().any(|v| v == MODERN_VERSION) {
                ProbeVerdict::Modern
            } else {
                ProbeVerdict::Legacy
            };
        }
        Answered::Error(e) => e,
        Answered::Malformed(_) => return ProbeVerdict::Legacy,
    };
    match error.code {
        // Codes 2025-11-25 does not have: the server speaks 2026-07-28.
        HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY => return ProbeVerdict::Modern,
        UNSUPPORTED_PROTOCOL_VERSION => {}
        _ => return ProbeVerdict::Legacy,
    }
    let supported = versions(error.data.as_ref().and_then(|d| d.get("supported")));
    if supported.iter().any(|v| v == MODERN_VERSION) {
        ProbeVerdict::RetryWith(MODERN_VERSION.to_owned())
    } else if supported.iter().any(|v| is_modern_version(v)) {
        ProbeVerdict::NoCommonVersion(supported)
    } else {
        // Only legacy versions in common: the server asks for the handshake.
        ProbeVerdict::Legacy
    }
}

#[cfg(test)]
mod probe_tests {
    use super::*;

    #[test]
    fn a_modern_error_never_means_fall_back() {
        let e = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2027-01-01"}}});
        assert_eq!(
            classify_probe(Some(&e)),
            ProbeVerdict::RetryWith("2026-07-28".into())
        );
        let e = json!({"error": {"code": -32022, "message": "x", "data": {"supported": ["2027-06-01"]}}});
        assert_eq!(
            classify_probe(Some(&e)),
            ProbeVerdict::NoCommonVersion(vec!["2027-06-01".into()])
        );
        let e = json!({"error": {"code": -32022, "message": "x", "data": {"supported": ["2025-11-25"]}}});
        assert_eq!(classify_probe(Some(&e)), ProbeVerdict::Legacy);
    }

    #[test]
    fn header_mismatch_and_missing_capability_are_proof_of_the_modern_era() {
        for code in [-32020, -32021] {
            let e = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "2026-07-28 only"}});
            assert_eq!(classify_probe(Some(&e)), ProbeVerdict::Modern, "{code}");
        }
    }

    #[test]
    fn other_errors_silence_and_foreign_results_mean_legacy() {
        assert_eq!(classify_probe(None), ProbeVerdict::Legacy);
        for code in [-32601, -32602, -32000, -32603, -32600] {
            let e = json!({"error": {"code": code, "message": "no"}});
            assert_eq!(classify_probe(Some(&e)), ProbeVerdict::Legacy, "{code}");
        }
        let r = json!({"result": {"supportedVersions": ["2025-11-25"]}});
        assert_eq!(classify_probe(Some(&r)), ProbeVerdict::Legacy);
        let r = json!({"result": {"resultType": "complete", "supportedVersions": ["2026-07-28"]}});
        assert_eq!(classify_probe(Some(&r)), ProbeVerdict::Modern);
        assert!(is_modern_version("2026-07-28") && !is_modern_version("2025-11-25"));
        assert!(!is_modern_version("v999.0.0"));
    }
}
