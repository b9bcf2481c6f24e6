//! JSON-RPC 2.0 messages and the MCP 2026-07-28 shapes that MRTR uses.
//!
//! Messages stay `serde_json::Value` at the edges (they are shown byte for byte in the page and
//! must round-trip unknown fields); the parts the engines reason about get small typed views.

use serde_json::{json, Map, Value};

use crate::error::RpcError;

/// The protocol revision that carries multi round-trip requests.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The last revision with the `initialize` handshake and server-to-client requests.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// The `_meta` key of the protocol version each 2026-07-28 request carries.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the client's capabilities, sent with each request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the client's name and version.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of the server's name and version, in its results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The only methods whose result may be `input_required`.
pub const INPUT_CAPABLE_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// True when `method` may answer with `resultType: "input_required"`.
pub fn may_require_input(method: &str) -> bool {
    INPUT_CAPABLE_METHODS.contains(&method)
}

/// A JSON-RPC id: a string or an integer (null ids are not requests).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// Reads an id: a string, or a number that fits an `i64`; `None` for anything else.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            _ => None,
        }
    }

    /// The id as JSON, as it was read.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => json!(n),
            RequestId::String(s) => json!(s),
        }
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// One JSON-RPC message, classified.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request: it has an id and expects a response.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: String,
        /// Its params (an object or array), if any.
        params: Option<Value>,
    },
    /// A notification: a method without an id; nothing answers it.
    Notification {
        /// Its method.
        method: String,
        /// Its params, if any.
        params: Option<Value>,
    },
    /// A success response.
    Response {
        /// The id of the request it answers.
        id: RequestId,
        /// Its result.
        result: Value,
    },
    /// An error response.
    Error {
        /// The id of the request it answers; `None` when the request's id could not be read.
        id: Option<RequestId>,
        /// The error.
        error: RpcError,
    },
}

impl Message {
    /// Parses one message from text. Malformed JSON is -32700; a JSON value that is not a
    /// JSON-RPC 2.0 message is -32600.
    pub fn parse(text: &str) -> Result<Message, RpcError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| RpcError::parse_error(format!("Parse error: {e}")))?;
        Message::from_value(&value)
    }

    /// Classifies a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<Message, RpcError> {
        MessageRef::from_value(value).map(MessageRef::into_owned)
    }

    /// The message as a JSON-RPC 2.0 object.
    pub fn to_value(&self) -> Value {
        match self {
            Message::Request { id, method, params } => request(id, method, params.clone()),
            Message::Notification { method, params } => {
                let mut m = Map::new();
                m.insert("jsonrpc".into(), json!("2.0"));
                m.insert("method".into(), json!(method));
                if let Some(p) = params {
                    m.insert("params".into(), p.clone());
                }
                Value::Object(m)
            }
            Message::Response { id, result } => response(id, result.clone()),
            Message::Error { id, error } => error_response(id.as_ref(), error),
        }
    }
}

/// A [`Message`] read without copying its params or result: what a server reads each
/// request through (a copy of the params would be thrown away once answered).
#[derive(Debug)]
pub enum MessageRef<'a> {
    /// A request.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: &'a str,
        /// Its params, if any (an object or an array).
        params: Option<&'a Value>,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: &'a str,
        /// Its params, if any.
        params: Option<&'a Value>,
    },
    /// A success response.
    Response {
        /// The id of the request it answers.
        id: RequestId,
        /// Its result.
        result: &'a Value,
    },
    /// An error response.
    Error {
        /// The id of the request it answers, if it could be read.
        id: Option<RequestId>,
        /// The error.
        error: RpcError,
    },
}

impl<'a> MessageRef<'a> {
    /// Classifies a parsed JSON value, as [`Message::from_value`] does.
    pub fn from_value(value: &'a Value) -> Result<MessageRef<'a>, RpcError> {
        let obj = value
            .as_object()
            .ok_or_else(|| RpcError::invalid_request("a JSON-RPC message must be an object"))?;
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(RpcError::invalid_request("\"jsonrpc\" must be \"2.0\""));
        }
        let id = match obj.get("id") {
            None => None,
            Some(Value::Null) => None,
            Some(v) => Some(RequestId::from_value(v).ok_or_else(|| {
                RpcError::invalid_request("\"id\" must be a string or an integer")
            })?),
        };
        let params = obj.get("params");
        if let Some(p) = &params {
            if !p.is_object() && !p.is_array() {
                return Err(RpcError::invalid_request("\"params\" must be an object"));
            }
        }
        if let Some(method) = obj.get("method") {
            let method = method
                .as_str()
                .ok_or_else(|| RpcError::invalid_request("\"method\" must be a string"))?;
            if obj.get("id").is_some_and(Value::is_null) {
                return Err(RpcError::invalid_request(
                    "a request's \"id\" must be a string or an integer, not null (a notification has no \"id\")",
                ));
            }
            return Ok(match id {
                Some(id) => MessageRef::Request { id, method, params },
                None => MessageRef::Notification { method, params },
            });
        }
        if let Some(result) = obj.get("result") {
            let id = id.ok_or_else(|| RpcError::invalid_request("a response needs an \"id\""))?;
            return Ok(MessageRef::Response { id, result });
        }
        if let Some(error) = obj.get("error") {
            let error = RpcError::from_value(error)
                .ok_or_else(|| RpcError::invalid_request("malformed \"error\" object"))?;
            return Ok(MessageRef::Error { id, error });
        }
        Err(RpcError::invalid_request(
            "not a request, notification or response",
        ))
    }

    /// The owned [`Message`].
    pub fn into_owned(self) -> Message {
        match self {
            MessageRef::Request { id, method, params } => Message::Request {
                id,
                method: method.to_owned(),
                params: params.cloned(),
            },
            MessageRef::Notification { method, params } => Message::Notification {
                method: method.to_owned(),
                params: params.cloned(),
            },
            MessageRef::Response { id, result } => Message::Response {
                id,
                result: result.clone(),
            },
            MessageRef::Error { id, error } => Message::Error { id, error },
        }
    }
}

/// Builds a request object with fields in the customary order.
pub fn request(id: &RequestId, method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("id".into(), id.to_value());
    m.insert("method".into(), json!(method));
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// A success response to the request `id`.
pub fn response(id: &RequestId, result: Value) -> Value {
    // Built by hand: `json!` would copy `result` through a serialiser (same fields, same order).
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    m.insert("id".into(), id.to_value());
    m.insert("result".into(), result);
    Value::Object(m)
}

/// An error response to the request `id` (`"id": null` when it is unknown).
pub fn error_response(id: Option<&RequestId>, error: &RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.map(RequestId::to_value).unwrap_or(Value::Null),
        "error": error.to_value(),
    })
}

/// What a client declared it can do, for the parts MRTR gates on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// `elicitation.form` (or a bare `elicitation`): it can show a form.
    pub elicitation_form: bool,
    /// `elicitation.url`: it can send the user to a web page.
    pub elicitation_url: bool,
    /// `sampling`: it can run its model for the server.
    pub sampling: bool,
    /// `sampling.tools`: its sampling also takes requests that offer the model tools.
    pub sampling_tools: bool,
    /// `roots`: it can list its roots.
    pub roots: bool,
    /// `extensions["io.modelcontextprotocol/tasks"]`: it can read a task (a call may then be
    /// answered with one; see [`crate::tasks`]).
    pub tasks: bool,
}

impl ClientCapabilities {
    /// Reads a `ClientCapabilities` object. Unknown keys are ignored; a bare `elicitation: {}`
    /// means form mode only, as the spec says.
    pub fn from_value(v: &Value) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        let Some(obj) = v.as_object() else {
            return caps;
        };
        if let Some(e) = obj.get("elicitation").and_then(Value::as_object) {
            let form = e.get("form").is_some_and(Value::is_object);
            let url = e.get("url").is_some_and(Value::is_object);
            caps.elicitation_form = form || !url;
            caps.elicitation_url = url;
        }
        if let Some(s) = obj.get("sampling").and_then(Value::as_object) {
            caps.sampling = true;
            caps.sampling_tools = s.get("tools").is_some_and(Value::is_object);
        }
        caps.roots = obj.get("roots").is_some_and(Value::is_object);
        caps.tasks = obj
            .get("extensions")
            .and_then(|e| e.get(crate::tasks::EXTENSION))
            .is_some_and(Value::is_object);
        caps
    }

    /// The smallest `ClientCapabilities` object declaring exactly these (each mode and
    /// sub-capability as `{}`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        if self.elicitation_form || self.elicitation_url {
            let mut e = Map::new();
            if self.elicitation_form {
                e.insert("form".into(), json!({}));
            }
            if self.elicitation_url {
                e.insert("url".into(), json!({}));
            }
            m.insert("elicitation".into(), Value::Object(e));
        }
        if self.sampling {
            if self.sampling_tools {
                m.insert("sampling".into(), json!({"tools": {}}));
            } else {
                m.insert("sampling".into(), json!({}));
            }
        }
        if self.roots {
            m.insert("roots".into(), json!({}));
        }
        if self.tasks {
            m.insert("extensions".into(), json!({(crate::tasks::EXTENSION): {}}));
        }
        Value::Object(m)
    }

    /// Everything a client can declare.
    pub fn all() -> ClientCapabilities {
        ClientCapabilities {
            elicitation_form: true,
            elicitation_url: true,
            sampling: true,
            sampling_tools: true,
            roots: true,
            tasks: true,
        }
    }

    /// True when a request of this kind may be sent to this client.
    pub fn allows(&self, kind: InputKind) -> bool {
        match kind {
            InputKind::ElicitForm => self.elicitation_form,
            InputKind::ElicitUrl => self.elicitation_url,
            InputKind::Sampling => self.sampling,
            InputKind::SamplingWithTools => self.sampling && self.sampling_tools,
            InputKind::Roots => self.roots,
        }
    }
}

/// The per-request `_meta` envelope of 2026-07-28.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The protocol version the request names.
    pub protocol_version: String,
    /// What the capabilities allow, as MRTR gates on them.
    pub capabilities: ClientCapabilities,
    /// The declared capabilities as sent, for echoing and display.
    pub raw_capabilities: Value,
    /// The client's name and version object, if sent.
    pub client_info: Option<Value>,
}

impl Envelope {
    /// The envelope a 2026-07-28 client sends: [`MODERN_VERSION`], these capabilities (sent
    /// as [`ClientCapabilities::to_value`]) and this client info.
    pub fn new(capabilities: ClientCapabilities, client_info: Option<Value>) -> Envelope {
        Envelope {
            protocol_version: MODERN_VERSION.to_owned(),
            raw_capabilities: capabilities.to_value(),
            capabilities,
            client_info,
        }
    }

    /// True when `params._meta` carries a protocol version: the mark of a modern request.
    pub fn is_present(params: Option<&Value>) -> bool {
        params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .is_some()
    }

    /// Reads the envelope from a request's params. A missing required key is -32602.
    pub fn from_params(params: Option<&Value>) -> Result<Envelope, RpcError> {
        let (version, caps, meta) = Envelope::read(params)?;
        Ok(Envelope {
            protocol_version: version.to_owned(),
            capabilities: ClientCapabilities::from_value(caps),
            raw_capabilities: caps.clone(),
            client_info: meta.get(META_CLIENT_INFO).cloned(),
        })
    }

    /// What [`Envelope::from_params`] checks, copying nothing: the protocol version, the
    /// declared capabilities as sent, and the whole `_meta`.
    pub fn read(params: Option<&Value>) -> Result<(&str, &Value, &Map<String, Value>), RpcError> {
        let meta = params
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .ok_or_else(|| {
                RpcError::invalid_params("Missing params._meta: every 2026-07-28 request carries its protocol version and client capabilities")
            })?;
        let version = meta
            .get(META_PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Missing or non-string _meta[\"{META_PROTOCOL_VERSION}\"]"
                ))
            })?;
        let caps = meta
            .get(META_CLIENT_CAPABILITIES)
            .filter(|c| c.is_object())
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Missing or non-object _meta[\"{META_CLIENT_CAPABILITIES}\"]"
                ))
            })?;
        Ok((version, caps, meta))
    }

    /// The envelope as a `_meta` object: version, client info if any, capabilities as sent.
    pub fn to_meta(&self) -> Value {
        let mut m = Map::new();
        m.insert(META_PROTOCOL_VERSION.into(), json!(self.protocol_version));
        if let Some(info) = &self.client_info {
            m.insert(META_CLIENT_INFO.into(), info.clone());
        }
        m.insert(
            META_CLIENT_CAPABILITIES.into(),
            self.raw_capabilities.clone(),
        );
        Value::Object(m)
    }
}

/// `resultType` as the client reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultType {
    /// The call is done: the result is final.
    Complete,
    /// The server needs input first: `inputRequests`, and usually a `requestState` to
    /// send back.
    InputRequired,
    /// The call goes on as a task (the tasks extension): valid only as the answer to a
    /// request that declared it.
    Task,
}

impl ResultType {
    /// The value as sent in `resultType`.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }

    /// A missing `resultType` means complete; an unknown one is an error.
    pub fn of(result: &Value) -> Result<ResultType, String> {
        match result.get("resultType") {
            None | Some(Value::Null) => Ok(ResultType::Complete),
            Some(Value::String(s)) if s == "complete" => Ok(ResultType::Complete),
            Some(Value::String(s)) if s == "input_required" => Ok(ResultType::InputRequired),
            Some(Value::String(s)) if s == "task" => Ok(ResultType::Task),
            Some(other) => Err(format!("unknown resultType {other}")),
        }
    }
}

/// What an input request asks for, as far as capability gating goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum InputKind {
    /// A form elicitation; needs `elicitation.form`.
    ElicitForm,
    /// A url elicitation; needs `elicitation.url`.
    ElicitUrl,
    /// Sampling without tools; needs `sampling`.
    Sampling,
    /// Sampling that offers the model tools (`tools` or `toolChoice`); needs `sampling.tools`.
    SamplingWithTools,
    /// A roots listing; needs `roots`.
    Roots,
}

impl InputKind {
    /// The smallest `ClientCapabilities` object that allows this kind.
    pub fn required_capability(self) -> Value {
        match self {
            InputKind::ElicitForm => json!({"elicitation": {"form": {}}}),
            InputKind::ElicitUrl => json!({"elicitation": {"url": {}}}),
            InputKind::Sampling => json!({"sampling": {}}),
            InputKind::SamplingWithTools => json!({"sampling": {"tools": {}}}),
            InputKind::Roots => json!({"roots": {}}),
        }
    }
}

/// One embedded request inside `inputRequests`: a bare `{method, params}`.
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create` in form mode.
    ElicitForm {
        /// What the user is asked, in words.
        message: String,
        /// The form's `requestedSchema`.
        schema: Value,
    },
    /// `elicitation/create` in url mode.
    ElicitUrl {
        /// Why the user should visit the page.
        message: String,
        /// The page.
        url: String,
    },
    /// `sampling/createMessage`.
    Sampling {
        /// Its params as sent (`messages`, `maxTokens`, …).
        params: Value,
    },
    /// `roots/list`.
    Roots,
}

impl InputRequest {
    /// A form elicitation with a JSON schema of primitive properties.
    pub fn elicit(message: impl Into<String>, schema: Value) -> InputRequest {
        InputRequest::ElicitForm {
            message: message.into(),
            schema,
        }
    }

    /// A sampling request with one user text message.
    pub fn sample_text(text: &str, max_tokens: u32) -> InputRequest {
        InputRequest::Sampling {
            params: json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
                "maxTokens": max_tokens,
            }),
        }
    }

    /// The embedded request's method.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::ElicitForm { .. } | InputRequest::ElicitUrl { .. } => {
                "elicitation/create"
            }
            InputRequest::Sampling { .. } => "sampling/createMessage",
            InputRequest::Roots => "roots/list",
        }
    }

    /// Its kind, which decides the capability it needs.
    pub fn kind(&self) -> InputKind {
        match self {
            InputRequest::ElicitForm { .. } => InputKind::ElicitForm,
            InputRequest::ElicitUrl { .. } => InputKind::ElicitUrl,
            InputRequest::Sampling { params } => {
                if params.get("tools").is_some() || params.get("toolChoice").is_some() {
                    InputKind::SamplingWithTools
                } else {
                    InputKind::Sampling
                }
            }
            InputRequest::Roots => InputKind::Roots,
        }
    }

    /// The `params` of the embedded request.
    pub fn params(&self) -> Value {
        match self {
            InputRequest::ElicitForm { message, schema } => {
                let mut m = Map::new();
                m.insert("mode".into(), Value::from("form"));
                m.insert("message".into(), Value::from(message.as_str()));
                m.insert("requestedSchema".into(), schema.clone());
                Value::Object(m)
            }
            InputRequest::ElicitUrl { message, url } => {
                json!({"mode": "url", "message": message, "url": url})
            }
            InputRequest::Sampling { params } => params.clone(),
            InputRequest::Roots => json!({}),
        }
    }

    /// The embedded request as sent in `inputRequests`: `{method, params}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("method".into(), Value::from(self.method()));
        m.insert("params".into(), self.params());
        Value::Object(m)
    }

    /// Reads an embedded request (the client side). Unknown methods are an error.
    pub fn from_value(v: &Value) -> Result<InputRequest, String> {
        let method = v
            .get("method")
            .and_then(Value::as_str)
            .ok_or("an input request needs a string \"method\"")?;
        let params = v.get("params").cloned().unwrap_or_else(|| json!({}));
        match method {
            "elicitation/create" => {
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .ok_or("elicitation/create needs a \"message\"")?
                    .to_owned();
                match params.get("mode").and_then(Value::as_str) {
                    Some("url") => {
                        let url = params
                            .get("url")
                            .and_then(Value::as_str)
                            .ok_or("url elicitation needs a \"url\"")?
                            .to_owned();
                        Ok(InputRequest::ElicitUrl { message, url })
                    }
                    None | Some("form") => Ok(InputRequest::ElicitForm {
                        message,
                        schema: params
                            .get("requestedSchema")
                            .cloned()
                            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
                    }),
                    Some(other) => Err(format!("unknown elicitation mode {other:?}")),
                }
            }
            "sampling/createMessage" => {
                if !params.get("messages").is_some_and(Value::is_array) {
                    return Err("sampling/createMessage needs \"messages\"".into());
                }
                Ok(InputRequest::Sampling { params })
            }
            "roots/list" => Ok(InputRequest::Roots),
            other => Err(format!("unknown input request method {other:?}")),
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// The user answered (the content goes with it).
    Accept,
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

impl ElicitAction {
    /// The value as sent in the answer's `action`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// One entry of `inputResponses`, sorted by shape as both SDKs do.
#[derive(Clone, Debug, PartialEq)]
pub enum InputResponse {
    /// An elicitation result: it has an `action`.
    Elicit {
        /// What the user chose.
        action: ElicitAction,
        /// The form's values (primitives, or arrays of strings), if any were sent.
        content: Option<Map<String, Value>>,
    },
    /// A sampling result (it has a `role` and a `content`), kept whole.
    Sampling(Value),
    /// A roots result: the `roots` list, each with a string `uri`.
    Roots(Vec<Value>),
}

impl InputResponse {
    /// Classifies a bare result object. Anything that is not one of the three shapes (a
    /// number, a wrapped `result`, a `method`) is `None`: it is dropped and asked again.
    pub fn classify(v: &Value) -> Option<InputResponse> {
        let obj = v.as_object()?;
        if obj.contains_key("method") || obj.contains_key("result") {
            return None;
        }
        if let Some(action) = obj.get("action") {
            let action = match action.as_str()? {
                "accept" => ElicitAction::Accept,
                "decline" => ElicitAction::Decline,
                "cancel" => ElicitAction::Cancel,
                _ => return None,
            };
            let content = match obj.get("content") {
                None | Some(Value::Null) => None,
                Some(Value::Object(c)) => {
                    let primitive = c.values().all(|v| {
                        v.is_string()
                            || v.is_number()
                            || v.is_boolean()
                            || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                    });
                    if !primitive {
                        return None;
                    }
                    Some(c.clone())
                }
                Some(_) => return None,
            };
            return Some(InputResponse::Elicit { action, content });
        }
        if let Some(roots) = obj.get("roots") {
            let roots = roots.as_array()?;
            if !roots
                .iter()
                .all(|r| r.get("uri").is_some_and(Value::is_string))
            {
                return None;
            }
            return Some(InputResponse::Roots(roots.clone()));
        }
        if obj.get("role").is_some() && obj.get("content").is_some() {
            return Some(InputResponse::Sampling(v.clone()));
        }
        None
    }

    /// The method of the request this is the result of: a ticket records the method asked
    /// under each key, and an answer of another kind does not answer it.
    pub fn method(&self) -> &'static str {
        match self {
            InputResponse::Elicit { .. } => "elicitation/create",
            InputResponse::Sampling(_) => "sampling/createMessage",
            InputResponse::Roots(_) => "roots/list",
        }
    }

    /// The accepted form content, if the user accepted.
    pub fn accepted(&self) -> Option<&Map<String, Value>> {
        match self {
            InputResponse::Elicit {
                action: ElicitAction::Accept,
                content,
            } => content.as_ref(),
            _ => None,
        }
    }

    /// The text of a sampling result (first text block).
    pub fn sampled_text(&self) -> Option<&str> {
        let InputResponse::Sampling(v) = self else {
            return None;
        };
        let content = v.get("content")?;
        let block = if let Some(list) = content.as_array() {
            list.iter()
                .find(|b| b.get("type") == Some(&json!("text")))?
        } else {
            content
        };
        block.get("text").and_then(Value::as_str)
    }
}

/// The `inputResponses` of one retry, after validation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputResponses {
    /// Entries that had a valid shape, in the order sent.
    pub entries: Vec<(String, InputResponse)>,
    /// Keys whose value had no valid shape; the handler asks for them again.
    pub dropped: Vec<String>,
}

impl InputResponses {
    /// Reads `params.inputResponses`: absent or null is empty; an object is classified entry
    /// by entry; any other type is a protocol error (-32602).
    pub fn from_params(params: Option<&Value>) -> Result<InputResponses, RpcError> {
        let mut out = InputResponses::default();
        match params.and_then(|p| p.get("inputResponses")) {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    match InputResponse::classify(v) {
                        Some(r) => out.entries.push((k.clone(), r)),
                        None => out.dropped.push(k.clone()),
                    }
                }
            }
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "inputResponses must be an object keyed like inputRequests",
                ))
            }
        }
        Ok(out)
    }

    /// The valid answer under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&InputResponse> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, r)| r)
    }

    /// The keys of the valid entries, in the order sent.
    pub fn keys(&self) -> Vec<String> {
        self.entries.iter().map(|(k, _)| k.clone()).collect()
    }

    /// Each valid entry's key with the method it answers.
    pub fn answered(&self) -> Vec<(String, &'static str)> {
        self.entries
            .iter()
            .map(|(k, r)| (k.clone(), r.method()))
            .collect()
    }

    /// Keeps only the entries that answer what `awaits` asked (same key, same method); the
    /// rest move to `dropped`, so a handler never sees an answer of the wrong kind.
    pub fn retain_awaited(&mut self, awaits: &std::collections::BTreeMap<String, String>) {
        let (keep, drop): (Vec<_>, Vec<_>) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|(k, r)| awaits.get(k).is_some_and(|m| m == r.method()));
        self.entries = keep;
        self.dropped.extend(drop.into_iter().map(|(k, _)| k));
    }

    /// True when no entry is valid (dropped keys do not count).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Builds an `InputRequiredResult` body.
pub fn input_required_result(requests: &[(String, InputRequest)], state: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("resultType".into(), json!("input_required"));
    if !requests.is_empty() {
        let mut reqs = Map::new();
        for (k, r) in requests {
            reqs.insert(k.clone(), r.to_value());
        }
        m.insert("inputRequests".into(), Value::Object(reqs));
    }
    if let Some(s) = state {
        m.insert("requestState".into(), Value::from(s));
    }
    Value::Object(m)
}

/// A text content block.
pub fn text_content(text: impl Into<String>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::from("text"));
    m.insert("text".into(), Value::String(text.into()));
    Value::Object(m)
}

/// The JSON-RPC messages in a `text/event-stream` body (Streamable HTTP's other answer form):
/// each event's `data:` lines joined, the ones that are not JSON skipped.
pub fn sse_messages(body: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut data = String::new();
    for line in body.lines().chain(std::iter::once("")) {
        if let Some(d) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        } else if line.is_empty() && !data.is_empty() {
            if let Ok(v) = serde_json::from_str(&data) {
                out.push(v);
            }
            data.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_call_round_trips() {
        let text = r#"{"jsonrpc":"2.0","id":"call-tool-example","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"location":"New York"}}}"#;
        let msg = Message::parse(text).unwrap();
        let Message::Request { id, method, params } = &msg else {
            panic!("not a request")
        };
        assert_eq!(id, &RequestId::String("call-tool-example".into()));
        assert_eq!(method, "tools/call");
        let env = Envelope::from_params(params.as_ref()).unwrap();
        assert_eq!(env.protocol_version, MODERN_VERSION);
        assert_eq!(env.capabilities, ClientCapabilities::default());
        assert_eq!(serde_json::to_string(&msg.to_value()).unwrap(), text);
    }

    #[test]
    fn spec_example_input_required_result_parses() {
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"github_login":{"method":"elicitation/create","params":{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},"capital_of_france":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}}},"requestState":"eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"}}"#;
        let Message::Response { result, .. } = Message::parse(text).unwrap() else {
            panic!()
        };
        assert_eq!(ResultType::of(&result), Ok(ResultType::InputRequired));
        let reqs = result["inputRequests"].as_object().unwrap();
        let gh = InputRequest::from_value(&reqs["github_login"]).unwrap();
        assert_eq!(gh.kind(), InputKind::ElicitForm);
        assert_eq!(gh.to_value(), reqs["github_login"]);
        let cap = InputRequest::from_value(&reqs["capital_of_france"]).unwrap();
        assert_eq!(cap.kind(), InputKind::Sampling);
        assert_eq!(cap.to_value(), reqs["capital_of_france"]);
        let rebuilt = input_required_result(
            &[
                ("github_login".into(), gh),
                ("capital_of_france".into(), cap),
            ],
            Some("eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"),
        );
        assert_eq!(rebuilt, result);
    }

    #[test]
    fn result_type_rules() {
        assert_eq!(ResultType::of(&json!({})), Ok(ResultType::Complete));
        assert_eq!(
            ResultType::of(&json!({"resultType": "complete"})),
            Ok(ResultType::Complete)
        );
        assert_eq!(
            ResultType::of(&json!({"resultType": "task"})),
            Ok(ResultType::Task)
        );
        assert!(ResultType::of(&json!({"resultType": "later"})).is_err());
        assert!(ResultType::of(&json!({"resultType": 3})).is_err());
    }

    #[test]
    fn bare_elicitation_means_form_only() {
        let c = ClientCapabilities::from_value(&json!({"elicitation": {}}));
        assert!(c.elicitation_form && !c.elicitation_url);
        let c = ClientCapabilities::from_value(&json!({"elicitation": {"url": {}}}));
        assert!(!c.elicitation_form && c.elicitation_url);
        let c = ClientCapabilities::from_value(
            &json!({"sampling": {}, "roots": {"listChanged": true}}),
        );
        assert!(c.sampling && c.roots && !c.sampling_tools && !c.elicitation_form);
        assert_eq!(ClientCapabilities::from_value(&c.to_value()), c);
    }

    #[test]
    fn envelope_requires_version_and_capabilities() {
        let e = Envelope::from_params(Some(&json!({"name": "x"}))).unwrap_err();
        assert_eq!(e.code, crate::error::INVALID_PARAMS);
        let e = Envelope::from_params(Some(
            &json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("clientCapabilities"));
        let env = Envelope::new(
            ClientCapabilities::all(),
            Some(json!({"name": "t", "version": "1"})),
        );
        let back = Envelope::from_params(Some(&json!({"_meta": env.to_meta()}))).unwrap();
        assert_eq!(back, env);
    }

    #[test]
    fn input_responses_are_sorted_by_shape() {
        let p = json!({"inputResponses": {
            "a": {"action": "accept", "content": {"name": "octocat"}},
            "b": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
            "c": {"roots": [{"uri": "file:///x"}]},
            "d": 12345,
            "e": {"result": {"action": "accept"}},
            "f": {"method": "elicitation/create"},
        }});
        let r = InputResponses::from_params(Some(&p)).unwrap();
        assert_eq!(r.keys(), vec!["a", "b", "c"]);
        assert_eq!(r.dropped, vec!["d", "e", "f"]);
        assert_eq!(r.get("a").unwrap().accepted().unwrap()["name"], "octocat");
        assert_eq!(r.get("b").unwrap().sampled_text(), Some("Paris"));
        assert!(
            InputResponses::from_params(Some(&json!({"inputResponses": null})))
                .unwrap()
                .is_empty()
        );
        assert!(InputResponses::from_params(Some(&json!({"inputResponses": "x"}))).is_err());
    }

    #[test]
    fn malformed_messages_are_errors_not_panics() {
        for bad in [
            "",
            "{",
            "[]",
            "1",
            "{\"jsonrpc\":\"1.0\"}",
            "{\"jsonrpc\":\"2.0\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":3}",
        ] {
            assert!(Message::parse(bad).is_err(), "{bad}");
        }
    }
}
