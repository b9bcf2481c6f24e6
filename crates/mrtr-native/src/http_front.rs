//! Stateless Streamable HTTP at `/mcp`: one POST per request; JSON responses, or an SSE
//! stream when a handler sends progress before its result.
//!
//! Before the engine sees a request, the transport's own rules run, in the order the spec
//! and the conformance suite expect: Host and Origin (403, against DNS rebinding), the
//! content type (415), the body's size (413) and syntax (400 -32700), the per-request
//! `_meta` (400 -32602, from the engine), then the standard headers against the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` headers a
//! tool's schema asks for: 400 -32020 when missing, malformed or different).

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::Value;

use mrtr_core::error::RpcError;
use mrtr_core::wire::{error_response, Envelope, RequestId};
use mrtr_core::{CallContext, Clock, Entropy, Principal, Reply, Server};

use crate::headers::{decode_sentinel, ParamHeader};
use crate::os::{OsEntropy, SystemClock};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 1 << 20;
/// Host names a server bound to loopback answers to by default (any port).
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];
/// Implementation-defined code for a refusal by the transport (Host, Origin, media type).
const TRANSPORT_REFUSED: i64 = -32000;

/// How the HTTP front treats requests before they reach the engine.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Print every check's outcome on stderr.
    pub log_checks: bool,
    /// Host names (without port) that `Host` and `Origin` may name; `None` accepts any
    /// (only behind a proxy that checks them itself).
    pub allowed_hosts: Option<Vec<String>>,
    /// A name for this process in its log lines (which replica served what).
    pub name: String,
    /// The redemption store does network I/O: run requests where blocking is allowed.
    pub blocking_store: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            log_checks: false,
            allowed_hosts: Some(LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect()),
            name: "mrtr-server".into(),
            blocking_store: false,
        }
    }
}

/// The front without its sockets: every check of a POST to `/mcp` and the engine behind
/// them, as plain functions from the request's headers and body to the [`HttpReply`] the
/// front sends. [`router`] serves one over axum; tests and fuzzing call it directly.
#[derive(Clone)]
pub struct HttpFront {
    /// Shared, not locked: the engine handles requests at once (its store records
    /// atomically).
    server: Arc<Server>,
    params: Arc<HashMap<String, Vec<ParamHeader>>>,
    opts: Arc<HttpOptions>,
}

/// What the front sends for one request: status, headers and body, and the lines it prints
/// on stderr about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpReply {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers besides those axum adds (name, value).
    pub headers: Vec<(&'static str, &'static str)>,
    /// The body: a JSON-RPC response, or empty (a notification's 202).
    pub body: String,
    /// Lines for stderr (the checks' outcomes with `log_checks`), one per entry.
    pub log: Vec<String>,
}

impl IntoResponse for HttpReply {
    fn into_response(self) -> Response {
        let body = if self.body.is_empty() {
            Body::empty()
        } else {
            Body::from(self.body)
        };
        let mut res = Response::new(body);
        *res.status_mut() = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        for (name, value) in self.headers {
            res.headers_mut().insert(
                header::HeaderName::from_static(name),
                header::HeaderValue::from_static(value),
            );
        }
        res
    }
}

/// Runs the engine for one request: `|f| f()` on this thread, or somewhere blocking is
/// allowed (the async front's `block_in_place`, for a store across the network).
pub type Offload<'a> = &'a dyn Fn(&mut dyn FnMut() -> Reply) -> Reply;

impl HttpFront {
    /// A front for `server`, treating requests as `opts` says; it reads each tool's
    /// `x-mcp-header` parameters from the catalog once, to check the `Mcp-Param-*` headers.
    pub fn new(server: Server, opts: HttpOptions) -> HttpFront {
        let params = server
            .catalog
            .tools
            .iter()
            .map(|t| (t.name.to_owned(), ParamHeader::all_in(&t.input_schema)))
            .filter(|(_, p)| !p.is_empty())
            .collect();
        HttpFront {
            server: Arc::new(server),
            params: Arc::new(params),
            opts: Arc::new(opts),
        }
    }

    /// The whole answer to a POST whose body is `body`: [`Self::refuse_before_body`], the
    /// size limit, then [`Self::answer`].
    pub fn respond(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        clock: &dyn Clock,
        entropy: &mut dyn Entropy,
        offload: Offload<'_>,
    ) -> HttpReply {
        if let Some(refused) = self.refuse_before_body(headers) {
            return refused;
        }
        let body = (body.len() <= BODY_LIMIT).then_some(body);
        self.answer(headers, body, clock, entropy, offload)
    }

    /// The refusals that come before the body is read: Host and Origin (403), the content
    /// type (415).
    pub fn refuse_before_body(&self, headers: &HeaderMap) -> Option<HttpReply> {
        if let Err(why) = check_host_and_origin(headers, self.opts.allowed_hosts.as_deref()) {
            let mut r = refuse(403, None, RpcError::new(TRANSPORT_REFUSED, why.clone()));
            r.log.push(format!("[{}] refused: {why}", self.opts.name));
            return Some(r);
        }
        if !is_json(headers) {
            return Some(refuse(
                415,
                None,
                RpcError::new(
                    TRANSPORT_REFUSED,
                    "Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json",
                ),
            ));
        }
        None
    }

    /// The answer to a POST that passed [`Self::refuse_before_body`], from its body (`None`:
    /// over [`BODY_LIMIT`] or unreadable, 413): its syntax, the standard headers against it,
    /// then the engine.
    pub fn answer(
        &self,
        headers: &HeaderMap,
        body: Option<&[u8]>,
        clock: &dyn Clock,
        entropy: &mut dyn Entropy,
        offload: Offload<'_>,
    ) -> HttpReply {
        let Some(body) = body else {
            return refuse(
                413,
                None,
                RpcError::invalid_request(format!(
                    "the body is over the {BODY_LIMIT}-byte limit (or could not be read)"
                )),
            );
        };
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                let err = RpcError::parse_error(format!("Parse error: the body is not JSON ({e})"));
                return refuse(400, None, err);
            }
        };
        let id = value.get("id").and_then(RequestId::from_value);
        if let Err(err) = check_headers(headers, &value, &self.params) {
            return refuse(400, id.as_ref(), err);
        }
        let auth = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        let principal = Principal::from_bearer(auth);
        let mut handle = || {
            self.server.handle(
                &value,
                &mut CallContext {
                    principal: &principal,
                    clock,
                    entropy: &mut *entropy,
                },
            )
        };
        // A store across the network blocks while it answers: tell the runtime, so other
        // requests keep going on its other threads.
        let reply = if self.opts.blocking_store && self.reaches_store(&value) {
            offload(&mut handle)
        } else {
            handle()
        };
        let log = if self.opts.log_checks {
            self.log_lines(&principal, &value, &reply)
        } else {
            Vec::new()
        };
        let notifications: Vec<&Value> = reply.notifications().collect();
        let mut out = match &reply.response {
            Some(body) if !notifications.is_empty() && reply.http_status == 200 => {
                sse_response(&notifications, body)
            }
            Some(body) => json_response(reply.http_status, body),
            None => HttpReply {
                status: 202,
                headers: Vec::new(),
                body: String::new(),
                log: Vec::new(),
            },
        };
        out.log = log;
        out
    }

    /// Whether answering `value` reaches the redemption store: a request carrying a ticket, a
    /// task method, or a call of a tool that may start a task.
    fn reaches_store(&self, value: &Value) -> bool {
        let method = value.get("method").and_then(Value::as_str).unwrap_or("");
        value
            .get("params")
            .and_then(|p| p.get("requestState"))
            .is_some()
            || method.starts_with("tasks/")
            || (method == "tools/call"
                && value
                    .pointer("/params/name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| self.server.catalog.task_work(n).is_some()))
    }

    /// The log's lines for one request: what was asked and the status, then each check.
    fn log_lines(&self, principal: &Principal, value: &Value, reply: &Reply) -> Vec<String> {
        let what = [
            value.get("method").and_then(Value::as_str),
            value
                .pointer("/params/name")
                .or_else(|| value.pointer("/params/uri"))
                .and_then(Value::as_str),
        ];
        let name = &self.opts.name;
        let mut log = vec![format!(
            "[{name}] {principal}: {} -> {}",
            what.iter().flatten().copied().collect::<Vec<_>>().join(" "),
            reply.http_status
        )];
        log.extend(
            reply
                .trace
                .iter()
                .map(|e| format!("[{name}] {principal}: {}", crate::describe(e))),
        );
        log
    }
}

/// The axum routes of a server: `POST /mcp` answered by an [`HttpFront`]; `GET` and
/// `DELETE` get 405 (the server is stateless).
pub fn router(server: Server, opts: HttpOptions) -> Router {
    Router::new()
        .route(
            "/mcp",
            post(handle_post).get(not_allowed).delete(not_allowed),
        )
        // The limit is applied by hand (a JSON-RPC error, not axum's plain text).
        .layer(DefaultBodyLimit::disable())
        .with_state(HttpFront::new(server, opts))
}

async fn not_allowed() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, "POST")],
        "This server is stateless: POST one JSON-RPC request per call.\n",
    )
        .into_response()
}

fn json_response(status: u16, body: &Value) -> HttpReply {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    HttpReply {
        status: status.as_u16(),
        headers: vec![("content-type", "application/json")],
        // serde_json's writer, not `Display` (which goes through a formatter, byte by byte).
        body: serde_json::to_string(body).unwrap_or_default(),
        log: Vec::new(),
    }
}

/// The notifications, then the response, as one SSE stream (one message per `data:` line).
fn sse_response(notifications: &[&Value], response: &Value) -> HttpReply {
    let mut body = String::new();
    for m in notifications
        .iter()
        .copied()
        .chain(std::iter::once(response))
    {
        body.push_str("event: message\ndata: ");
        body.push_str(&serde_json::to_string(m).unwrap_or_default());
        body.push_str("\n\n");
    }
    HttpReply {
        status: 200,
        headers: vec![
            ("content-type", "text/event-stream"),
            ("cache-control", "no-cache, no-transform"),
            ("x-accel-buffering", "no"),
        ],
        body,
        log: Vec::new(),
    }
}

fn refuse(status: u16, id: Option<&RequestId>, error: RpcError) -> HttpReply {
    json_response(status, &error_response(id, &error))
}

async fn handle_post(State(front): State<HttpFront>, headers: HeaderMap, body: Body) -> Response {
    let reply = match front.refuse_before_body(&headers) {
        Some(refused) => refused,
        None => {
            let body: Option<Bytes> = axum::body::to_bytes(body, BODY_LIMIT).await.ok();
            front.answer(
                &headers,
                body.as_deref(),
                &SystemClock,
                &mut OsEntropy,
                &|f| tokio::task::block_in_place(f),
            )
        }
    };
    for line in &reply.log {
        eprintln!("{line}");
    }
    reply.into_response()
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// A `Host` value or an origin's authority, parsed: the host lowercased (an IPv6 address
/// bracketed and in its canonical form, `[::1]`), and the port if one is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authority {
    /// Lowercased name or IPv4 address, or bracketed canonical IPv6 address.
    pub host: String,
    /// The port, if the text gave one (1 to 65535).
    pub port: Option<u16>,
}

/// Parses `host[:port]`: a name or IPv4 address of letters, digits, `-`, `.` and `_`, or an
/// IPv6 address in brackets; a port of 1 to 5 digits, 1 to 65535. Anything else (user info,
/// a path, a second colon, an empty port, percent escapes) is `None`.
pub fn parse_authority(text: &str) -> Option<Authority> {
    let (host, rest) = if let Some(v6) = text.strip_prefix('[') {
        let (inside, rest) = v6.split_once(']')?;
        let addr: std::net::Ipv6Addr = inside.parse().ok()?;
        (format!("[{addr}]"), rest)
    } else {
        let end = text.find(':').unwrap_or(text.len());
        let name = &text[..end];
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b));
        if !plain {
            return None;
        }
        (name.to_ascii_lowercase(), &text[end..])
    };
    let port = match rest {
        "" => None,
        _ => {
            let digits = rest.strip_prefix(':')?;
            let ok = (1..=5).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
            Some(digits.parse::<u16>().ok().filter(|p| ok && *p != 0)?)
        }
    };
    Some(Authority { host, port })
}

/// An `Origin` header, parsed: scheme, host and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// The host, as in [`Authority::host`].
    pub host: String,
    /// The port, if the origin gave one.
    pub port: Option<u16>,
}

/// Parses an `Origin` as browsers serialise one (RFC 6454): `http://` or `https://`, then
/// [`parse_authority`], and nothing after it. `null`, other schemes, user info, a path, a
/// query or a fragment are `None`.
pub fn parse_origin(text: &str) -> Option<Origin> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let a = parse_authority(rest)?;
    Some(Origin {
        scheme,
        host: a.host,
        port: a.port,
    })
}

/// DNS rebinding protection: a `Host` the server does not answer to, or an `Origin` (when
/// present) naming another host, is refused. Both are parsed, never matched as text: the
/// `Host` as `host[:port]`, the `Origin` as `http(s)://host[:port]` and nothing more, and the
/// host must then equal an allowed name (any port). Non-browser clients send no `Origin`.
pub fn check_host_and_origin(
    headers: &HeaderMap,
    allowed: Option<&[String]>,
) -> Result<(), String> {
    let Some(allowed) = allowed else {
        return Ok(());
    };
    let ok = |name: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(name));
    let host = headers
        .get(header::HOST)
        .ok_or("Forbidden: the request has no Host header")?
        .to_str()
        .map_err(|_| "Forbidden: the Host header is not ASCII".to_owned())?;
    let host_port = match parse_authority(host.trim()) {
        Some(a) if ok(&a.host) => a.port,
        _ => {
            return Err(format!(
                "Forbidden: Host {host:?} is not one this server answers to ({})",
                allowed.join(", ")
            ))
        }
    };
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| "Forbidden: the Origin header is not ASCII".to_owned())?;
        let o = match parse_origin(origin.trim()) {
            Some(o) if ok(&o.host) => o,
            _ => {
                return Err(format!(
                    "Forbidden: Origin {origin:?} may not call this server: it must be http:// or https://, one of {}, and an optional port",
                    allowed.join(", ")
                ))
            }
        };
        // Another port is another origin: another program on this machine (a dev server on
        // :5173) must not call this one. Either header leaves out the port its scheme
        // implies, and the browser reached this server by the origin's scheme.
        let implied = if o.scheme == "https" { 443 } else { 80 };
        let (theirs, ours) = (o.port.unwrap_or(implied), host_port.unwrap_or(implied));
        if theirs != ours {
            return Err(format!(
                "Forbidden: Origin {origin:?} is on port {theirs}, this server on {ours}: a page of another origin calls only with --cors-origin"
            ));
        }
    }
    Ok(())
}

/// The standard headers must be present and agree with the body (-32020). They are checked
/// only on requests with a valid `_meta`: a request without one gets the engine's -32602,
/// and `initialize` or `ping` its 404, whatever their headers say.
pub fn check_headers(
    headers: &HeaderMap,
    body: &Value,
    params: &HashMap<String, Vec<ParamHeader>>,
) -> Result<(), RpcError> {
    let (Some(method), Some(_id)) = (
        body.get("method").and_then(Value::as_str),
        body.get("id").filter(|i| !i.is_null()),
    ) else {
        return Ok(()); // Notifications and non-requests: no header rules in this revision.
    };
    let params_in_body = body.get("params");
    let version = match Envelope::read(params_in_body) {
        Ok((version, _, _)) if !matches!(method, "initialize" | "ping") => version,
        _ => return Ok(()),
    };
    let h = header_value(headers, "mcp-protocol-version")?;
    compare("MCP-Protocol-Version", h.as_deref(), version)?;
    let h = header_value(headers, "mcp-method")?;
    compare("Mcp-Method", h.as_deref(), method)?;
    let Some(key) = mrtr_core::headers::name_param(method) else {
        return Ok(());
    };
    let Some(name) = params_in_body
        .and_then(|p| p.get(key))
        .and_then(Value::as_str)
    else {
        return Ok(()); // The engine says what is wrong with the params.
    };
    let h = header_value(headers, "mcp-name")?
        .map(|v| decode_sentinel(&v).ok_or_else(|| malformed("Mcp-Name")))
        .transpose()?;
    compare("Mcp-Name", h.as_deref(), name)?;
    if method == "tools/call" {
        for p in params.get(name).into_iter().flatten() {
            check_param(headers, body, p)?;
        }
    }
    Ok(())
}

fn malformed(name: &str) -> RpcError {
    RpcError::header_mismatch(format!(
        "Header mismatch: the {name} header is malformed (invalid characters or Base64)"
    ))
}

/// A header's value with optional white space trimmed; `Err` when it is not visible ASCII.
fn header_value(headers: &HeaderMap, name: &str) -> Result<Option<String>, RpcError> {
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim_matches([' ', '\t']).to_owned()))
            .map_err(|_| malformed(name)),
    }
}

fn compare(name: &str, header: Option<&str>, body: &str) -> Result<(), RpcError> {
    match header {
        None => Err(RpcError::header_mismatch(format!(
            "Header mismatch: the required {name} header is missing (the body says {body:?})"
        ))),
        Some(h) if h != body => Err(RpcError::header_mismatch(format!(
            "Header mismatch: {name} header value {h:?} does not match body value {body:?}"
        ))),
        Some(_) => Ok(()),
    }
}

fn check_param(headers: &HeaderMap, body: &Value, p: &ParamHeader) -> Result<(), RpcError> {
    let arguments = body.get("params").and_then(|p| p.get("arguments"));
    let Some(expected) = p.value_in(arguments) else {
        return Ok(()); // Absent, null or not a primitive: no header expected.
    };
    let name = p.name();
    let h = header_value(headers, &name)?
        .map(|v| decode_sentinel(&v).ok_or_else(|| malformed(&name)))
        .transpose()?;
    compare(&name, h.as_deref(), &expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use mrtr_core::wire::META_PROTOCOL_VERSION;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn call(name: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {"region": "Hello"}, "_meta": {META_PROTOCOL_VERSION: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    }

    fn no_params() -> HashMap<String, Vec<ParamHeader>> {
        HashMap::new()
    }

    const STD: [(&str, &str); 3] = [
        ("mcp-method", "tools/call"),
        ("mcp-name", "deploy"),
        ("mcp-protocol-version", "2026-07-28"),
    ];

    #[test]
    fn standard_headers_are_required_and_must_match_the_body() {
        let body = call("deploy");
        assert!(check_headers(&headers(&STD), &body, &no_params()).is_ok());
        for drop in 0..3 {
            let mut h = STD.to_vec();
            h.remove(drop);
            let e = check_headers(&headers(&h), &body, &no_params()).unwrap_err();
            assert_eq!(e.code, -32020, "{h:?}");
            assert!(e.message.contains("missing"), "{e}");
        }
        for (i, bad) in [
            ("mcp-method", "tools/list"),
            ("mcp-name", "other"),
            ("mcp-protocol-version", "2025-11-25"),
        ]
        .into_iter()
        .enumerate()
        {
            let mut h = STD.to_vec();
            h[i] = bad;
            assert_eq!(
                check_headers(&headers(&h), &body, &no_params())
                    .unwrap_err()
                    .code,
                -32020
            );
        }
        let mut h = STD.to_vec();
        h[0] = ("mcp-method", "TOOLS/CALL");
        assert!(check_headers(&headers(&h), &body, &no_params()).is_err());
        h[0] = ("mcp-method", "  tools/call\t");
        assert!(check_headers(&headers(&h), &body, &no_params()).is_ok());
    }

    #[test]
    fn requests_without_a_valid_envelope_are_left_to_the_engine() {
        let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        assert!(check_headers(&HeaderMap::new(), &bare, &no_params()).is_ok());
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"});
        assert!(check_headers(&HeaderMap::new(), &init, &no_params()).is_ok());
    }

    #[test]
    fn an_encoded_name_is_decoded_before_comparing() {
        let unicode = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "déploy", "_meta": {META_PROTOCOL_VERSION: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
        let enc = format!("=?base64?{}?=", STANDARD.encode("déploy"));
        let h = headers(&[
            ("mcp-method", "tools/call"),
            ("mcp-name", &enc),
            ("mcp-protocol-version", "2026-07-28"),
        ]);
        assert!(check_headers(&h, &unicode, &no_params()).is_ok());
    }

    #[test]
    fn param_headers_follow_the_tools_schema() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "list": {"type": "array", "items": {"properties": {"x": {"x-mcp-header": "X"}}}},
            "bad": {"type": "string", "x-mcp-header": "has space"},
        }});
        let p = ParamHeader::all_in(&schema);
        assert_eq!(
            p,
            vec![
                ParamHeader {
                    path: vec!["region".into()],
                    header: "Region".into()
                },
                ParamHeader {
                    path: vec!["nested".into(), "n".into()],
                    header: "N".into()
                },
            ]
        );
        let params: HashMap<_, _> = [("test_param_header".to_owned(), p)].into();
        let body = call("test_param_header");
        let mut std = vec![
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_param_header"),
            ("mcp-protocol-version", "2026-07-28"),
        ];
        assert_eq!(
            check_headers(&headers(&std), &body, &params)
                .unwrap_err()
                .code,
            -32020,
            "the header is omitted but the value is in the body"
        );
        std.push(("mcp-param-region", "=?base64?SGVsbG8=?="));
        assert!(check_headers(&headers(&std), &body, &params).is_ok());
        std.pop();
        std.push(("mcp-param-region", "=?base64?SGVsbG8?="));
        assert!(check_headers(&headers(&std), &body, &params).is_err());
        std.pop();
        std.push(("mcp-param-region", "Bye"));
        assert!(check_headers(&headers(&std), &body, &params).is_err());
    }

    fn front(opts: HttpOptions) -> HttpFront {
        let server = crate::ServerOptions {
            keys: vec![("k1".into(), vec![1; 32])],
            name: "test".into(),
            ..crate::ServerOptions::default()
        }
        .build()
        .unwrap();
        HttpFront::new(server, opts)
    }

    fn post(front: &HttpFront, pairs: &[(&'static str, &str)], body: &[u8]) -> HttpReply {
        let mut rng = mrtr_core::SeededEntropy::new(1);
        let clock = mrtr_core::FixedClock(1_800_000_000_000);
        front.respond(&headers(pairs), body, &clock, &mut rng, &|f| f())
    }

    #[test]
    fn the_front_answers_without_sockets_in_the_order_of_its_checks() {
        let f = front(HttpOptions {
            log_checks: true,
            ..HttpOptions::default()
        });
        let json = ("content-type", "application/json");
        let host = ("host", "localhost:3000");
        let r = post(&f, &[json], b"{}");
        assert_eq!(r.status, 403);
        assert_eq!(r.log.len(), 1, "a refused Host is logged: {r:?}");
        assert_eq!(post(&f, &[host], b"{}").status, 415);
        let big = vec![b' '; BODY_LIMIT + 1];
        assert_eq!(post(&f, &[host, json], &big).status, 413);
        assert_eq!(post(&f, &[host, json], b"{").status, 400);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}, "_meta": {META_PROTOCOL_VERSION: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}}});
        let body = body.to_string();
        let r = post(&f, &[host, json], body.as_bytes());
        assert_eq!(r.status, 400, "the standard headers are missing");
        let mut all = vec![host, json];
        all.extend(STD);
        let r = post(&f, &all, body.as_bytes());
        assert_eq!((r.status, r.headers.clone()), (200, vec![json]), "{r:?}");
        let v: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(v["result"]["resultType"], "input_required", "{v}");
        assert!(!r.log.is_empty(), "--log-checks lines");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = post(&f, &[host, json], note.to_string().as_bytes());
        assert_eq!((r.status, r.body.as_str()), (202, ""));
    }

    #[test]
    fn host_and_origin_guard_against_dns_rebinding() {
        let allowed: Vec<String> = LOOPBACK_HOSTS.iter().map(|s| s.to_string()).collect();
        let ok = |pairs: &[(&'static str, &str)]| {
            check_host_and_origin(&headers(pairs), Some(&allowed)).is_ok()
        };
        assert!(ok(&[("host", "127.0.0.1:3000")]));
        assert!(ok(&[
            ("host", "localhost:3000"),
            ("origin", "http://localhost:3000")
        ]));
        assert!(ok(&[("host", "[::1]:8080")]));
        assert!(ok(&[("host", "LOCALHOST")]));
        assert!(!ok(&[("host", "evil.example.com")]));
        assert!(!ok(&[
            ("host", "127.0.0.1:3000"),
            ("origin", "http://evil.example.com")
        ]));
        assert!(!ok(&[("host", "127.0.0.1:3000"), ("origin", "null")]));
        // The same host on another port is another origin (rmcp and the Python SDK agree).
        assert!(!ok(&[
            ("host", "localhost:3000"),
            ("origin", "http://localhost:5173")
        ]));
        assert!(!ok(&[
            ("host", "localhost:3000"),
            ("origin", "http://localhost")
        ]));
        assert!(!ok(&[
            ("host", "localhost"),
            ("origin", "http://localhost:8080")
        ]));
        // A port its scheme implies may be left out of either.
        assert!(ok(&[
            ("host", "localhost:80"),
            ("origin", "http://localhost")
        ]));
        assert!(ok(&[
            ("host", "localhost"),
            ("origin", "https://localhost:443")
        ]));
        assert!(ok(&[
            ("host", "localhost"),
            ("origin", "https://localhost")
        ]));
        assert!(!ok(&[]), "no Host at all");
        assert!(check_host_and_origin(&headers(&[("host", "evil")]), None).is_ok());
    }

    #[test]
    fn origins_are_parsed_as_scheme_host_and_port_not_matched_as_text() {
        let allowed: Vec<String> = LOOPBACK_HOSTS.iter().map(|s| s.to_string()).collect();
        let with_origin = |allowed: &[String], origin: &str| {
            check_host_and_origin(
                &headers(&[("host", "localhost:3000"), ("origin", origin)]),
                Some(allowed),
            )
        };
        for good in [
            "http://localhost:3000",
            "HTTP://LocalHost:3000",
            "https://localhost:3000",
            "http://127.0.0.1:3000",
            "http://[::1]:3000",
            "http://[0:0:0:0:0:0:0:1]:3000",
        ] {
            assert!(with_origin(&allowed, good).is_ok(), "{good}");
        }
        // Parsed, allowed hosts, but on another port than the Host's.
        for other_port in [
            "http://localhost",
            "https://localhost:443",
            "http://127.0.0.1",
            "http://127.0.0.1:65535",
            "http://[::1]:8080",
        ] {
            let e = with_origin(&allowed, other_port).expect_err(other_port);
            assert!(e.contains("is on port"), "{other_port}: {e}");
        }
        for bad in [
            "null",
            "",
            "localhost",
            "localhost:3000",
            "http://localhost.evil.com",
            "http://localhost:3000@evil",
            "http://localhost:3000@evil.com",
            "http://user@localhost:3000",
            "http://localhost:3000/",
            "http://localhost:3000/path",
            "http://localhost?x",
            "http://localhost#x",
            "http://localhost:",
            "http://localhost:0",
            "http://localhost:65536",
            "http://localhost:123456",
            "http://localhost:30a0",
            "http://localhost:3000:4000",
            "http://localhost%2eevil.com",
            "http://evil.com\\@localhost",
            "http://127.0.0.1.evil.com",
            "http://[::1",
            "http://[::1]evil",
            "http://[::2]",
            "http://[::1%25eth0]",
            "ftp://localhost",
            "file://localhost",
            "javascript://localhost",
            "ws://localhost:3000",
            "chrome-extension://localhost",
            "http:/localhost",
            "http:///localhost",
            "//localhost",
        ] {
            let e = with_origin(&allowed, bad).expect_err(bad);
            assert!(e.starts_with("Forbidden: Origin"), "{bad}: {e}");
        }
        // A name added with --allow-host works for Host and Origin alike, by its exact name.
        let mut more = allowed.clone();
        more.push("mcp.example.com".into());
        let pair = |host: &str, origin: &str| {
            check_host_and_origin(&headers(&[("host", host), ("origin", origin)]), Some(&more))
                .is_ok()
        };
        assert!(pair("mcp.example.com", "https://mcp.example.com"));
        assert!(pair("MCP.example.com:8443", "https://mcp.example.com:8443"));
        assert!(!pair("mcp.example.com", "https://mcp.example.com.evil.org"));
        assert!(!pair("mcp.example.com", "https://evil.mcp.example.com"));
        assert!(!pair("mcp.example.com", "https://mcp.example.com@evil.org"));
        // The Host header is parsed the same way.
        for bad_host in [
            "localhost:3000@evil",
            "localhost:abc",
            "localhost:",
            "localhost.evil.com",
            "user@localhost",
            "localhost/x",
            "[::1",
            "",
        ] {
            assert!(
                check_host_and_origin(&headers(&[("host", bad_host)]), Some(&allowed)).is_err(),
                "{bad_host}"
            );
        }
    }
}
