//! Try it on a real server: the lab's own client engine ([`mrtr_core::client`]) against a
//! server the reader names, one `fetch` per request (the view does the I/O; everything it
//! decides is here). Every verdict is read from the real answer; every failure is a plain
//! sentence that names the cause and the fix.
//!
//! Privacy: the URL and the token live only in this session's memory. They are never put in
//! the page's link ([`super::link::Link`] has no field for them) and are sent nowhere but the
//! server named.

use serde_json::{json, Map, Value};

use mrtr_core::answered::{classify, Answered};
use mrtr_core::client::{CallError, Client, Host, PendingCall, Step};
use mrtr_core::error::UNSUPPORTED_PROTOCOL_VERSION;
pub use mrtr_core::headers::Mirrored;
use mrtr_core::ticket::{SEALED_PREFIX, SIGNED_PREFIX};

/// The longest ticket the page carries back. The spec sets no limit and a client must echo
/// the ticket byte for byte, so this is only what a retry can carry at all: a retry's body
/// must fit the 1 MiB a server such as mrtr-server reads.
pub const MAX_ECHOED_TICKET: usize = 1 << 20;
pub use mrtr_core::wire::sse_messages;
use mrtr_core::wire::{ClientCapabilities, InputRequest, MODERN_VERSION};

/// How long one request may go unanswered before it is abandoned, in milliseconds.
pub const TIMEOUT_MS: u32 = 10_000;
/// The response header that names the replica that answered (mrtr-server's `--name`).
pub const REPLICA_HEADER: &str = "mrtr-replica";

/// What the reader typed. Kept as typed: a failure never clears it.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    /// The server's MCP endpoint.
    pub url: String,
    /// The bearer token (empty: no `Authorization` header).
    pub token: String,
    /// The tool to call.
    pub tool: String,
    /// Its arguments, a JSON object as text.
    pub args: String,
    /// A second caller's bearer token, for the move that plays a thief (empty: that move is
    /// not made). Kept like the first: never in the link, sent only to the server named.
    pub other_token: String,
}

impl Default for Form {
    fn default() -> Form {
        Form {
            url: "http://127.0.0.1:8380/mcp".into(),
            token: String::new(),
            tool: "deploy".into(),
            args: r#"{"env":"staging"}"#.into(),
            other_token: String::new(),
        }
    }
}

impl Form {
    /// The URL and the arguments, or a sentence saying what to fix.
    pub fn check(&self) -> Result<(String, Value), String> {
        let url = self.url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) || url.len() < 10 {
            return Err("The server's URL must start with http:// or https://, e.g. http://127.0.0.1:8380/mcp.".into());
        }
        if self.tool.trim().is_empty() {
            return Err("Name the tool to call, e.g. deploy.".into());
        }
        // A header carries visible ASCII only: the browser would refuse to send anything else
        // (a pasted line break, a typographic quote), so say so here, before any request.
        for (which, token) in [
            ("token", &self.token),
            ("second caller's token", &self.other_token),
        ] {
            if let Some(c) = token.trim().chars().find(|c| !c.is_ascii_graphic()) {
                return Err(format!(
                    "The {which} holds {c:?}, which an Authorization header cannot carry: a token is letters, digits and punctuation, with no spaces."
                ));
            }
        }
        match serde_json::from_str::<Value>(self.args.trim()) {
            Ok(v @ Value::Object(_)) => Ok((url.to_owned(), v)),
            Ok(_) => Err("The arguments must be a JSON object, e.g. {\"env\":\"staging\"}.".into()),
            Err(e) => Err(format!("The arguments are not JSON ({e}).")),
        }
    }
}

/// The origin (scheme, host, port) of a URL, as a browser writes it in `Origin`.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty()).then(|| format!("{}://{}", scheme.to_ascii_lowercase(), host))
}

/// The headers a POST of `msg` carries (stateless Streamable HTTP): the ones the spec
/// derives from the message, by the core's one rule ([`Mirrored::headers_for`], with the
/// tools' mirrored parameters learnt so far), and the bearer token when there is one.
pub fn headers(msg: &Value, token: &str, mirrored: &Mirrored) -> Vec<(String, String)> {
    let mut h = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        (
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
    ];
    h.extend(mirrored.headers_for(msg));
    let token = token.trim();
    if !token.is_empty() {
        h.push(("Authorization".to_owned(), format!("Bearer {token}")));
    }
    h
}

/// What one `fetch` came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// An answer the page may read.
    Answer {
        /// The HTTP status.
        status: u16,
        /// The `Content-Type`.
        content_type: String,
        /// The `Mrtr-Replica` header, when the server exposes it.
        replica: Option<String>,
        /// The body, exactly as received.
        body: String,
    },
    /// The browser refused to hand over the answer, yet the server is there (a request the
    /// page may not read reached it): CORS.
    Blocked,
    /// Nothing answered at all.
    Unreachable,
    /// No answer within [`TIMEOUT_MS`].
    TimedOut,
}

/// Why the round trip stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The form is not filled in right.
    Form(String),
    /// The browser blocked the answer: no CORS headers for this page's origin.
    Cors,
    /// The server answered 403 to this page's `Origin`.
    OriginRefused,
    /// The server refused the token (401, or 403 in JSON-RPC).
    Unauthorized(u16),
    /// Nothing answered.
    Unreachable,
    /// No answer in time.
    TimedOut,
    /// The body is not JSON.
    NotJson {
        /// The HTTP status.
        status: u16,
        /// The start of the body.
        start: String,
    },
    /// JSON, but not a JSON-RPC answer to the request.
    NotMcp(String),
    /// The server speaks only the 2025-11-25 era (an `initialize` handshake and sessions).
    LegacyOnly(String),
    /// A ticket longer than a client should carry.
    TicketTooLong(usize),
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The code.
        code: i64,
        /// The message.
        message: String,
    },
    /// The answer broke the protocol.
    Protocol(String),
}

impl Failure {
    /// The sentence the page shows: what happened, and what to do about it.
    pub fn sentence(&self, page_origin: &str, url: &str) -> String {
        let o = page_origin;
        let audit = format!("or check it from a terminal with mrtr-audit {url}");
        match self {
            Failure::Form(s) => s.clone(),
            Failure::Cors => format!(
                "The browser blocked the answer: the server at {url} is up, but it does not allow this page's origin ({o}) with CORS. \
                 Start mrtr-server with --cors-origin {o}; on a TypeScript SDK server in an Express app add app.use(cors({{ origin: '{o}', exposedHeaders: ['Mrtr-Replica'] }})) before the MCP route; \
                 on a Python SDK server wrap its Starlette app in CORSMiddleware(app, allow_origins=['{o}'], allow_methods=['POST'], allow_headers=['*']); {audit}."
            ),
            Failure::OriginRefused => format!(
                "The server refused this page's Origin ({o}) with 403, as a DNS-rebinding guard does. Start mrtr-server with --cors-origin {o} (it lets that one origin through), {audit}."
            ),
            Failure::Unauthorized(s) => format!(
                "The server refused the token (HTTP {s}). Check the bearer token; mrtr-server takes any token and names the caller after it (alice-token is alice)."
            ),
            Failure::Unreachable => format!(
                "Nothing answered at {url}: is the server running, on that port? Start one with mrtr-server --http 127.0.0.1:8380 --cors-origin {o} (a page served over https cannot call an http server other than localhost). If the browser asked whether this page may reach devices on your local network (Chrome's Local Network Access), allow it: a refusal, or a question left open, fails the call the same way."
            ),
            Failure::TimedOut => format!(
                "No answer within {} s, so the request was abandoned: the server is slow or stuck. Try again, {audit}.",
                TIMEOUT_MS / 1000
            ),
            Failure::NotJson { status, start } => format!(
                "HTTP {status}, but the body is not JSON (it starts {start:?}): is {url} the MCP endpoint (often …/mcp)?"
            ),
            Failure::NotMcp(why) => format!(
                "The server answered, but not as an MCP server would: {why}. Is {url} the MCP endpoint?"
            ),
            Failure::LegacyOnly(why) => format!(
                "This server speaks only MCP 2025-11-25 ({why}): it wants an initialize handshake and a session, and has no multi round-trip requests. Upgrade its SDK to one that speaks 2026-07-28, {audit}."
            ),
            Failure::TicketTooLong(n) => format!(
                "The server's ticket is {n} bytes, over the {} MiB a retry's body can carry: it should keep the state small (or keep it server-side behind a short handle). The lab stops here rather than send it back.", MAX_ECHOED_TICKET >> 20
            ),
            Failure::Rpc { code, message } => format!(
                "The server answered with error {code}: {message}. {}",
                rpc_hint(*code)
            ),
            Failure::Protocol(why) => format!(
                "The answer broke the protocol: {why}. Run mrtr-audit {url} from a terminal for the details."
            ),
        }
    }
}

fn rpc_hint(code: i64) -> &'static str {
    match code {
        -32601 => "The server has no such method: check the URL is an MCP server's.",
        -32602 => "Check the tool's name and arguments.",
        -32020 => "The headers and the body disagree: a proxy rewriting headers, or an argument the tool wants mirrored into an Mcp-Param header, which this round trip does not send (the audit below does: it learns them from tools/list).",
        -32021 => "The server needs a capability this client did not declare.",
        _ => "Nothing more to do from here: the server has said no.",
    }
}

/// Reads an answer to `sent` into the JSON-RPC response, or the failure in it.
pub fn read(reply: &Reply, sent: &Value) -> Result<Value, Failure> {
    let (status, content_type, body) = match reply {
        Reply::Blocked => return Err(Failure::Cors),
        Reply::Unreachable => return Err(Failure::Unreachable),
        Reply::TimedOut => return Err(Failure::TimedOut),
        Reply::Answer {
            status,
            content_type,
            body,
            ..
        } => (*status, content_type.as_str(), body.as_str()),
    };
    let messages = messages_of(status, content_type, body)?;
    let id = sent.get("id");
    let Some(found) = messages.iter().find(|m| m.get("id") == id) else {
        return Err(unanswered(status, &messages, id));
    };
    if found.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Failure::NotMcp("\"jsonrpc\" is not \"2.0\"".into()));
    }
    match found.get("error") {
        Some(e) => Err(refusal(status, e)),
        None => Ok(found.clone()),
    }
}

/// The JSON-RPC messages in a body (a stream's events, or one JSON value), or what the body
/// says instead when it is not JSON (a login wall, a proxy's refusal, an old server).
fn messages_of(status: u16, content_type: &str, body: &str) -> Result<Vec<Value>, Failure> {
    if content_type.starts_with("text/event-stream") {
        return Ok(sse_messages(body));
    }
    match serde_json::from_str::<Value>(body) {
        Ok(v) => Ok(vec![v]),
        Err(_) if status == 401 => Err(Failure::Unauthorized(status)),
        Err(_) if status == 403 => Err(Failure::OriginRefused),
        Err(_) if status == 400 && mentions_sessions(body) => Err(Failure::LegacyOnly(short(body))),
        Err(_) => Err(Failure::NotJson {
            status,
            start: body.chars().take(60).collect(),
        }),
    }
}

/// Why no message answered the request `id`: a login wall, an old server's error with a
/// null id, or nothing MCP at all.
fn unanswered(status: u16, messages: &[Value], id: Option<&Value>) -> Failure {
    if status == 401 {
        return Failure::Unauthorized(status);
    }
    let any_rpc = messages
        .iter()
        .any(|m| m.get("jsonrpc").and_then(Value::as_str) == Some("2.0"));
    // An error with a null id: what the 2025-11-25 SDKs answer a request without a session.
    if let Some(e) = messages
        .iter()
        .find_map(|m| m.get("error"))
        .filter(|_| any_rpc)
    {
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        if mentions_sessions(msg) {
            return Failure::LegacyOnly(short(msg));
        }
        return Failure::Rpc {
            code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: msg.to_owned(),
        };
    }
    Failure::NotMcp(format!(
        "HTTP {status}, and no JSON-RPC response with id {}",
        id.cloned().unwrap_or_default()
    ))
}

/// The failure a JSON-RPC error `e` answered with `status` stands for: an old server, a
/// login wall, or the server's own refusal.
fn refusal(status: u16, e: &Value) -> Failure {
    let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = e
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if code == UNSUPPORTED_PROTOCOL_VERSION {
        let modern = e
            .pointer("/data/supported")
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|x| x.as_str() == Some(MODERN_VERSION)));
        if !modern {
            return Failure::LegacyOnly(format!(
                "it answered {MODERN_VERSION} with error {code}, supported {}",
                e.pointer("/data/supported").cloned().unwrap_or_default()
            ));
        }
    }
    if mentions_sessions(&message) {
        return Failure::LegacyOnly(short(&message));
    }
    if status == 401 || (status == 403 && code != -32021) {
        return Failure::Unauthorized(status);
    }
    Failure::Rpc { code, message }
}

fn mentions_sessions(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("not initialized") || t.contains("session id") || t.contains("mcp-session-id")
}

fn short(s: &str) -> String {
    let s = s.trim();
    let cut: String = s.chars().take(80).collect();
    if cut.len() < s.len() {
        format!("it said “{cut}…”")
    } else {
        format!("it said “{cut}”")
    }
}

/// How the page shows a ticket: read, when its payload is readable, or opaque.
#[derive(Clone, Debug, PartialEq)]
pub enum TicketView {
    /// A payload anyone holding the ticket can read (a real client must not rely on it: the
    /// lab reads it to teach).
    Readable {
        /// Whose format it looks like.
        format: &'static str,
        /// The payload, pretty-printed.
        json: String,
        /// Where it sits in the ticket, in words.
        place: String,
    },
    /// Nothing readable: sealed, or a format the lab does not know.
    Opaque {
        /// What the prefix says, if anything.
        format: &'static str,
    },
}

/// Reads a ticket the way mrtr-audit does (its one reader of payloads).
pub fn ticket_view(ticket: &str) -> TicketView {
    let format = if ticket.starts_with(SEALED_PREFIX) {
        "the lab's sealed ticket (v1e.)"
    } else if ticket.starts_with(SIGNED_PREFIX) {
        "the lab's signed ticket (v1.)"
    } else if ticket.starts_with("rs1.") {
        "rmcp's ticket (rs1.)"
    } else {
        "a format the lab does not name"
    };
    match mrtr_audit::variants::payload(ticket) {
        Some(p) => TicketView::Readable {
            format,
            json: serde_json::to_string_pretty(&Value::Object(p.json)).unwrap_or_default(),
            place: match p.framing {
                (0, 0) => format!("segment {} is Base64url JSON", p.segment + 1),
                (b, a) => format!(
                    "segment {} is Base64url JSON between {b} and {a} binary bytes",
                    p.segment + 1
                ),
            },
        },
        None => TicketView::Opaque { format },
    }
}

/// One field of an elicitation form, as the page asks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property name.
    pub name: String,
    /// Its title or description, for the label.
    pub label: String,
    /// Its kind.
    pub kind: FieldKind,
}

/// What a field takes.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// A checkbox.
    Bool,
    /// A number.
    Number,
    /// One of these.
    Choice(Vec<String>),
    /// Text.
    Text,
}

/// One question of an `input_required`, keyed as the server keyed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The key the answer goes back under.
    pub key: String,
    /// What the server asks, in its words.
    pub message: String,
    /// The form's fields (none for sampling, roots and URL elicitation).
    pub fields: Vec<Field>,
    /// The request as the core reads it.
    pub request: InputRequest,
}

/// The questions of an `input_required` result.
pub fn questions(result: &Value) -> Result<Vec<Question>, String> {
    let Some(reqs) = result.get("inputRequests").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    reqs.iter()
        .map(|(key, raw)| {
            let request = InputRequest::from_value(raw).map_err(|e| format!("{key}: {e}"))?;
            let (message, fields) = match &request {
                InputRequest::ElicitForm { message, schema } => {
                    (message.clone(), fields_of(schema))
                }
                InputRequest::ElicitUrl { message, url } => {
                    (format!("{message} (open {url})"), Vec::new())
                }
                InputRequest::Sampling { .. } => (
                    "The server asks the host's model for a completion: type its answer.".into(),
                    vec![Field {
                        name: "text".into(),
                        label: "The model's answer".into(),
                        kind: FieldKind::Text,
                    }],
                ),
                InputRequest::Roots => {
                    ("The server asks for the client's roots.".into(), Vec::new())
                }
            };
            Ok(Question {
                key: key.clone(),
                message,
                fields,
                request,
            })
        })
        .collect()
}

fn fields_of(schema: &Value) -> Vec<Field> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let label = ["title", "description"]
                .iter()
                .find_map(|k| p.get(*k).and_then(Value::as_str))
                .unwrap_or(name)
                .to_owned();
            let kind = if let Some(options) = p.get("enum").and_then(Value::as_array) {
                FieldKind::Choice(
                    options
                        .iter()
                        .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_owned))
                        .collect(),
                )
            } else {
                match p.get("type").and_then(Value::as_str) {
                    Some("boolean") => FieldKind::Bool,
                    Some("number") | Some("integer") => FieldKind::Number,
                    _ => FieldKind::Text,
                }
            };
            Field {
                name: name.clone(),
                label,
                kind,
            }
        })
        .collect()
}

/// What the reader answered, as typed: per question key, per field name.
pub type Answers = Map<String, Value>;

/// The answer the host sends for a field typed as `text`.
pub fn typed_value(kind: &FieldKind, text: &str, checked: bool) -> Value {
    match kind {
        FieldKind::Bool => json!(checked),
        // Read as a JSON number (serde_json's own reader: `12`, `-3`, `2.5`, `1e3`), not with
        // `str::parse` into a float, whose float reader costs the page's module kilobytes.
        FieldKind::Number => serde_json::from_str::<serde_json::Number>(text.trim())
            .map(Value::Number)
            .unwrap_or(Value::Null),
        _ => json!(text),
    }
}

/// The host of the real round trip: the reader. Accepts with what they typed, or declines.
struct Reader<'a> {
    answers: &'a Answers,
    decline: bool,
}

impl Host for Reader<'_> {
    fn elicit(&mut self, key: &str, _request: &InputRequest) -> Value {
        if self.decline {
            return json!({"action": "decline"});
        }
        let content = self.answers.get(key).cloned().unwrap_or_else(|| json!({}));
        json!({"action": "accept", "content": content})
    }

    fn sample(&mut self, key: &str, _request: &InputRequest) -> Option<Value> {
        if self.decline {
            return None;
        }
        let text = self
            .answers
            .get(key)
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        Some(
            json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "the-reader", "stopReason": "endTurn"}),
        )
    }

    fn roots(&mut self, _key: &str) -> Value {
        json!({"roots": []})
    }
}

/// Who sent a line of the wire log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// The page, to the server.
    Sent,
    /// The server, to the page.
    Received,
}

/// One line of the wire log: the exact bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Which way.
    pub dir: Dir,
    /// The round (1 for the call, 2 for the first retry…).
    pub round: u32,
    /// The bytes, as sent or received.
    pub bytes: String,
    /// The HTTP status (answers only).
    pub status: Option<u16>,
    /// The replica that answered, when the server names it.
    pub replica: Option<String>,
    /// How long it took, in milliseconds (answers only).
    pub ms: Option<u32>,
}

/// Where the round trip is.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// A request is out.
    Waiting,
    /// The server asked: the reader answers.
    Asking {
        /// The questions.
        questions: Vec<Question>,
        /// The ticket to send back byte for byte, if any.
        ticket: Option<String>,
    },
    /// The call completed.
    Done {
        /// The result.
        result: Value,
        /// True when it completed on the first request: the server never asked.
        never_asked: bool,
    },
    /// It stopped.
    Failed(Failure),
}

/// The call of the form's tool, begun by the page's client: its URL, the client, the call and
/// its first request (shared by the round trip and each misuse move).
pub fn begin_call(form: &Form) -> Result<(String, Client, PendingCall, Value), Failure> {
    let (url, args) = form.check().map_err(Failure::Form)?;
    let mut client = Client::new(
        ClientCapabilities::all(),
        "mrtr-lab-page",
        env!("CARGO_PKG_VERSION"),
    );
    let (call, msg) = client.begin(
        "tools/call",
        json!({"name": form.tool.trim(), "arguments": args}),
    );
    Ok((url, client, call, msg))
}

/// One real round trip.
#[derive(Clone, Debug)]
pub struct Session {
    client: Client,
    call: PendingCall,
    response: Option<Value>,
    /// The server's URL.
    pub url: String,
    /// Every byte, in order.
    pub log: Vec<Entry>,
    /// Where it is.
    pub phase: Phase,
}

impl Session {
    /// Starts a call of the form's tool: the session and the first request's bytes.
    pub fn start(form: &Form) -> Result<(Session, String), Failure> {
        let (url, client, call, msg) = begin_call(form)?;
        let mut s = Session {
            client,
            call,
            response: None,
            url,
            log: Vec::new(),
            phase: Phase::Waiting,
        };
        let bytes = s.send(msg);
        Ok((s, bytes))
    }

    fn send(&mut self, msg: Value) -> String {
        let bytes = msg.to_string();
        self.log.push(Entry {
            dir: Dir::Sent,
            round: self.call.round,
            bytes: bytes.clone(),
            status: None,
            replica: None,
            ms: None,
        });
        self.phase = Phase::Waiting;
        bytes
    }

    /// The request now out, as sent.
    pub fn sent(&self) -> Option<Value> {
        self.log
            .iter()
            .rev()
            .find(|e| e.dir == Dir::Sent)
            .and_then(|e| serde_json::from_str(&e.bytes).ok())
    }

    /// The round now out.
    pub fn round(&self) -> u32 {
        self.call.round
    }

    /// The round trip in words, one line per request: what went, who answered, what came
    /// back, each answer read by the core ([`classify`]), never by hand.
    pub fn round_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut prev_replica: Option<String> = None;
        for pair in self.log.chunks(2) {
            let sent = &pair[0];
            let what = if sent.round == 1 {
                "The call".to_owned()
            } else {
                format!("Retry {}", sent.round - 1)
            };
            let request: Option<Value> = serde_json::from_str(&sent.bytes).ok();
            let param = |k: &str| {
                request
                    .as_ref()
                    .and_then(|r| r.pointer(&format!("/params/{k}")))
            };
            let mut carries = Vec::new();
            if param("inputResponses").is_some() {
                carries.push("your answers");
            }
            if param("requestState").is_some() {
                carries.push("the ticket, byte for byte");
            }
            let carries = if carries.is_empty() {
                String::new()
            } else {
                format!(" with {}", carries.join(" and "))
            };
            let answer = pair.get(1).map(|g| {
                let kind = match serde_json::from_str::<Value>(&g.bytes).map(|v| classify(&v)) {
                    Ok(Answered::Complete(_)) => "complete",
                    Ok(Answered::InputRequired(_)) => "input_required",
                    Ok(Answered::Error(_)) => "an error",
                    Ok(Answered::Malformed(_)) | Err(_) => "no JSON-RPC response",
                };
                let replica = match (&g.replica, &prev_replica) {
                    (Some(r), Some(p)) if r != p => {
                        format!(" from replica {r} (not {p}: another replica)")
                    }
                    (Some(r), _) => format!(" from replica {r}"),
                    (None, _) => String::new(),
                };
                prev_replica = g.replica.clone().or(prev_replica.clone());
                format!(
                    " → HTTP {}{replica}, {kind}, in {} ms",
                    g.status.unwrap_or(0),
                    g.ms.unwrap_or(0)
                )
            });
            lines.push(format!(
                "{what}{carries}{}",
                answer.unwrap_or_else(|| " …".into())
            ));
        }
        lines
    }

    /// Takes the answer to the request now out. Returns the next request's bytes when one
    /// goes out at once (a ticket with nothing to ask).
    pub fn on_reply(&mut self, reply: Reply, ms: u32) -> Option<String> {
        if let Reply::Answer {
            status,
            replica,
            body,
            ..
        } = &reply
        {
            self.log.push(Entry {
                dir: Dir::Received,
                round: self.call.round,
                bytes: body.clone(),
                status: Some(*status),
                replica: replica.clone(),
                ms: Some(ms),
            });
        }
        let sent = self.sent().unwrap_or_default();
        let response = match read(&reply, &sent) {
            Ok(r) => r,
            Err(f) => {
                self.phase = Phase::Failed(f);
                return None;
            }
        };
        match classify(&response) {
            Answered::InputRequired(result) => {
                let ticket = result
                    .get("requestState")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(t) = &ticket {
                    if t.len() > MAX_ECHOED_TICKET {
                        self.phase = Phase::Failed(Failure::TicketTooLong(t.len()));
                        return None;
                    }
                }
                match questions(&result) {
                    Ok(q) if q.is_empty() => {
                        self.response = Some(response);
                        self.answer(&Answers::new(), false)
                    }
                    Ok(questions) => {
                        self.response = Some(response);
                        self.phase = Phase::Asking { questions, ticket };
                        None
                    }
                    Err(e) => {
                        self.phase = Phase::Failed(Failure::Protocol(format!("inputRequests {e}")));
                        None
                    }
                }
            }
            _ => {
                self.response = Some(response);
                self.step(&Answers::new(), false)
            }
        }
    }

    /// The reader answered (or declined): the retry's bytes, with the ticket byte for byte.
    pub fn answer(&mut self, answers: &Answers, decline: bool) -> Option<String> {
        self.step(answers, decline)
    }

    fn step(&mut self, answers: &Answers, decline: bool) -> Option<String> {
        let response = self.response.take()?;
        let first = self.call.round == 1;
        let mut host = Reader { answers, decline };
        match self
            .client
            .on_response(&mut self.call, &response, &mut host)
        {
            Step::Retry(msg) => Some(self.send(msg)),
            // This panel never declares the tasks extension, so the engine never follows a
            // task for it; were it to, say so rather than poll without a pause.
            Step::Task { .. } => {
                self.phase = Phase::Failed(Failure::Protocol(
                    "the server answered with a task, which this panel does not follow".into(),
                ));
                None
            }
            Step::Complete(result) => {
                self.phase = Phase::Done {
                    result,
                    never_asked: first,
                };
                None
            }
            Step::Failed(e) => {
                self.phase = Phase::Failed(match e {
                    CallError::Rpc(r) => Failure::Rpc {
                        code: r.code,
                        message: r.message,
                    },
                    CallError::Declined(k) => Failure::Protocol(format!(
                        "you declined {k:?}, and sampling has no decline"
                    )),
                    other => Failure::Protocol(other.to_string()),
                });
                None
            }
        }
    }

    /// The replicas that answered, in order, one per round.
    pub fn replicas(&self) -> Vec<Option<String>> {
        self.log
            .iter()
            .filter(|e| e.dir == Dir::Received)
            .map(|e| e.replica.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_number_field_is_read_as_a_json_number_or_nothing() {
        let n = |t: &str| typed_value(&FieldKind::Number, t, false);
        assert_eq!(n(" 12 "), json!(12));
        assert_eq!(n("-3"), json!(-3));
        assert_eq!(n("2.5"), json!(2.5));
        for junk in ["", "abc", "+5", ".5", "NaN", "1 2"] {
            assert_eq!(n(junk), Value::Null, "{junk:?}");
        }
    }

    use super::*;

    fn answer(body: Value, replica: &str) -> Reply {
        Reply::Answer {
            status: 200,
            content_type: "application/json".into(),
            replica: Some(replica.into()),
            body: body.to_string(),
        }
    }

    fn id_of(bytes: &str) -> Value {
        serde_json::from_str::<Value>(bytes).unwrap()["id"].clone()
    }

    #[test]
    fn the_form_says_what_to_fix() {
        assert!(Form::default().check().is_ok());
        let f = |url: &str, args: &str| {
            Form {
                url: url.into(),
                args: args.into(),
                ..Form::default()
            }
            .check()
        };
        assert!(f("ftp://x", "{}").unwrap_err().contains("http://"));
        assert!(f("http://127.0.0.1:1/mcp", "[1]")
            .unwrap_err()
            .contains("object"));
        assert!(f("http://127.0.0.1:1/mcp", "{")
            .unwrap_err()
            .contains("not JSON"));
        // Tokens a header cannot carry are refused before any request (a browser would throw).
        for (token, other) in [("bob\ntoken", ""), ("bob-tokén", ""), ("", "alice token")] {
            let form = Form {
                token: token.into(),
                other_token: other.into(),
                ..Form::default()
            };
            assert!(
                form.check()
                    .unwrap_err()
                    .contains("Authorization header cannot carry"),
                "{token:?} {other:?}"
            );
        }
        let padded = Form {
            token: "  bob-token \n".into(),
            ..Form::default()
        };
        assert!(padded.check().is_ok(), "the ends are trimmed, as when sent");
        assert_eq!(
            origin_of("http://127.0.0.1:8380/mcp?x").as_deref(),
            Some("http://127.0.0.1:8380")
        );
    }

    #[test]
    fn every_request_carries_the_headers_the_spec_requires() {
        let (s, bytes) = Session::start(&Form {
            token: " alice-token ".into(),
            tool: "déploy".into(),
            ..Form::default()
        })
        .unwrap();
        assert_eq!(s.round(), 1);
        let msg: Value = serde_json::from_str(&bytes).unwrap();
        let h = headers(&msg, " alice-token ", &Mirrored::default());
        let get = |k: &str| h.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("MCP-Protocol-Version"), Some(MODERN_VERSION));
        assert_eq!(get("Mcp-Method"), Some("tools/call"));
        assert_eq!(get("Mcp-Name"), Some("=?base64?ZMOpcGxveQ==?="));
        assert_eq!(get("Accept"), Some("application/json, text/event-stream"));
        assert_eq!(get("Authorization"), Some("Bearer alice-token"));
        assert!(headers(&msg, "", &Mirrored::default())
            .iter()
            .all(|(n, _)| n != "Authorization"));
        assert_eq!(
            msg.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion"),
            Some(&json!(MODERN_VERSION))
        );
    }

    #[test]
    fn a_ticket_longer_than_the_labs_own_is_still_carried_back() {
        // The lab's server refuses tickets over 4 096 bytes; the spec sets no limit, so a
        // client carries another server's longer ticket back unchanged.
        let (mut s, first) = Session::start(&Form::default()).unwrap();
        let ticket = format!("v1.{}", "A".repeat(20_000));
        let asks = json!({"jsonrpc":"2.0","id":id_of(&first),"result":{"resultType":"input_required",
            "inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy?",
            "requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}},
            "requestState":ticket}});
        assert_eq!(s.on_reply(answer(asks, "a"), 5), None);
        let mut a = Answers::new();
        a.insert(
            "confirm".into(),
            json!({"ok": typed_value(&FieldKind::Bool, "", true)}),
        );
        let retry = s.answer(&a, false).unwrap();
        let r: Value = serde_json::from_str(&retry).unwrap();
        assert_eq!(r["params"]["requestState"], json!(ticket));
    }

    #[test]
    fn the_round_trip_asks_the_reader_and_sends_the_ticket_back_byte_for_byte() {
        let (mut s, first) = Session::start(&Form::default()).unwrap();
        let ticket = "v1.eyJwIjp7ImVudiI6InN0YWdpbmcifX0.c2ln";
        let asks = json!({"jsonrpc":"2.0","id":id_of(&first),"result":{"resultType":"input_required",
            "inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to staging?",
            "requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","title":"Go ahead"}},"required":["ok"]}}}},
            "requestState":ticket}});
        assert_eq!(s.on_reply(answer(asks, "a"), 5), None);
        let Phase::Asking {
            questions,
            ticket: t,
        } = &s.phase
        else {
            panic!("{:?}", s.phase)
        };
        assert_eq!(t.as_deref(), Some(ticket));
        assert_eq!(questions[0].key, "confirm");
        assert_eq!(questions[0].fields[0].kind, FieldKind::Bool);
        assert_eq!(questions[0].fields[0].label, "Go ahead");
        let mut a = Answers::new();
        a.insert(
            "confirm".into(),
            json!({"ok": typed_value(&FieldKind::Bool, "", true)}),
        );
        let retry = s.answer(&a, false).unwrap();
        assert!(retry.contains(&format!("\"requestState\":\"{ticket}\"")));
        let r: Value = serde_json::from_str(&retry).unwrap();
        assert_eq!(
            r.pointer("/params/inputResponses/confirm"),
            Some(&json!({"action":"accept","content":{"ok":true}}))
        );
        assert_ne!(r["id"], id_of(&first));
        assert_eq!(s.round(), 2);
        let done = json!({"jsonrpc":"2.0","id":r["id"],"result":{"resultType":"complete","content":[{"type":"text","text":"deployed"}]}});
        assert_eq!(s.on_reply(answer(done, "b"), 7), None);
        assert!(matches!(
            s.phase,
            Phase::Done {
                never_asked: false,
                ..
            }
        ));
        assert_eq!(s.replicas(), [Some("a".into()), Some("b".into())]);
        assert_eq!(s.log.len(), 4);
        // Each line read off the core's reading of the answer, and the request's own params.
        assert_eq!(
            s.round_lines(),
            [
                "The call → HTTP 200 from replica a, input_required, in 5 ms",
                "Retry 1 with your answers and the ticket, byte for byte → HTTP 200 from replica b (not a: another replica), complete, in 7 ms",
            ]
        );
    }

    #[test]
    fn a_server_that_never_asks_is_said_so() {
        let (mut s, first) = Session::start(&Form::default()).unwrap();
        let done = json!({"jsonrpc":"2.0","id":id_of(&first),"result":{"resultType":"complete","content":[]}});
        s.on_reply(answer(done, "a"), 1);
        assert!(matches!(
            s.phase,
            Phase::Done {
                never_asked: true,
                ..
            }
        ));
    }

    fn failure(reply: Reply) -> Failure {
        let (mut s, _) = Session::start(&Form::default()).unwrap();
        s.on_reply(reply, 1);
        match s.phase {
            Phase::Failed(f) => f,
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn every_failure_names_its_cause_and_its_fix() {
        let o = "http://127.0.0.1:4000";
        let u = "http://127.0.0.1:8380/mcp";
        let cors = failure(Reply::Blocked).sentence(o, u);
        assert!(cors.contains(&format!("--cors-origin {o}")), "{cors}");
        assert!(cors.contains("CORSMiddleware") && cors.contains("app.use(cors("));
        assert!(cors.contains(&format!("mrtr-audit {u}")));
        assert!(failure(Reply::Unreachable)
            .sentence(o, u)
            .contains("Nothing answered"));
        assert!(failure(Reply::TimedOut).sentence(o, u).contains("10 s"));
        let text = |status: u16, body: &str| Reply::Answer {
            status,
            content_type: "text/html".into(),
            replica: None,
            body: body.into(),
        };
        assert!(matches!(
            failure(text(200, "<html>")),
            Failure::NotJson { status: 200, .. }
        ));
        assert_eq!(failure(text(403, "Forbidden")), Failure::OriginRefused);
        assert!(matches!(
            failure(text(400, "Bad Request: Server not initialized")),
            Failure::LegacyOnly(_)
        ));
        let ts_legacy = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}});
        assert!(matches!(
            failure(answer(ts_legacy, "x")),
            Failure::LegacyOnly(_)
        ));
        let old = json!({"jsonrpc":"2.0","id":1,"error":{"code":UNSUPPORTED_PROTOCOL_VERSION,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}}});
        assert!(failure(answer(old, "x"))
            .sentence(o, u)
            .contains("only MCP 2025-11-25"));
        assert!(matches!(
            failure(answer(json!({"hello":"world"}), "x")),
            Failure::NotMcp(_)
        ));
        let big = json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"v1.".to_owned() + &"A".repeat(MAX_ECHOED_TICKET)}});
        assert_eq!(
            failure(answer(big, "x")),
            Failure::TicketTooLong(MAX_ECHOED_TICKET + 3)
        );
        let nothing = json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}});
        assert!(matches!(
            failure(answer(nothing, "x")),
            Failure::Protocol(_)
        ));
        let rpc = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}});
        assert!(failure(answer(rpc, "x"))
            .sentence(o, u)
            .contains("-32602: Unknown tool"));
    }

    #[test]
    fn a_ticket_is_read_when_readable_and_opaque_when_not() {
        match ticket_view("v1.eyJleHAiOjEwMH0.c2ln") {
            TicketView::Readable { format, json, .. } => {
                assert!(format.contains("v1."));
                assert!(json.contains("\"exp\": 100"));
            }
            v => panic!("{v:?}"),
        }
        assert!(matches!(
            ticket_view("v1e.q83vEjRWeJq8"),
            TicketView::Opaque { .. }
        ));
        assert!(matches!(ticket_view("zzz"), TicketView::Opaque { .. }));
    }

    #[test]
    fn an_event_stream_answer_is_read() {
        let (mut s, first) = Session::start(&Form::default()).unwrap();
        let done = json!({"jsonrpc":"2.0","id":id_of(&first),"result":{"resultType":"complete","content":[]}});
        s.on_reply(
            Reply::Answer {
                status: 200,
                content_type: "text/event-stream".into(),
                replica: None,
                body: format!("event: message\ndata: {done}\n\n"),
            },
            1,
        );
        assert!(matches!(s.phase, Phase::Done { .. }));
    }
}
