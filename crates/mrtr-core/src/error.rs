//! JSON-RPC error objects and the codes MCP 2026-07-28 assigns.

use serde_json::{json, Map, Value};

/// JSON-RPC: the message is not valid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: valid JSON, but not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: bad parameters; also every refused ticket ([`RpcError::invalid_request_state`]).
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server's own fault (e.g. a ticket it cannot mint, a redemption store down).
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP: an HTTP header that mirrors the body (`Mcp-Method`, `Mcp-Param-*`, …) is missing,
/// malformed or says something else than the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP: the server would need input of a kind the request's `clientCapabilities` did not
/// declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// MCP: the request names a protocol version this server does not speak.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The one message every refused ticket gets on the wire, whatever the real reason: the
/// detail goes to the server's log, never to a caller who might be probing.
pub const INVALID_REQUEST_STATE_MESSAGE: &str = "Invalid or expired requestState";
/// The `data.reason` of every refused ticket: how a client tells a refusal from other -32602s.
pub const INVALID_REQUEST_STATE_REASON: &str = "invalid_request_state";

/// A JSON-RPC error object: what a response's `error` member holds.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The error code (the constants of this module, or another the peer sent).
    pub code: i64,
    /// A short description, sent to the peer.
    pub message: String,
    /// Structured detail, if any (e.g. `requiredCapabilities`, `reason`).
    pub data: Option<Value>,
}

impl RpcError {
    /// An error of this code and message, without data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// -32700 with this message.
    pub fn parse_error(message: impl Into<String>) -> RpcError {
        RpcError::new(PARSE_ERROR, message)
    }

    /// -32600 with this message.
    pub fn invalid_request(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_REQUEST, message)
    }

    /// -32601 naming the method.
    pub fn method_not_found(method: &str) -> RpcError {
        RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// -32602 with this message (not a ticket refusal: no `reason`).
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    /// -32603 with this message.
    pub fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(INTERNAL_ERROR, message)
    }

    /// -32020 with this message.
    pub fn header_mismatch(message: impl Into<String>) -> RpcError {
        RpcError::new(HEADER_MISMATCH, message)
    }

    /// -32021 with the capabilities that were missing, shaped like `ClientCapabilities`.
    pub fn missing_capability(message: impl Into<String>, required: Value) -> RpcError {
        RpcError::new(MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(json!({"requiredCapabilities": required}))
    }

    /// -32022 naming the versions this server speaks and the one it was asked for.
    pub fn unsupported_version(requested: &str, supported: &[&str]) -> RpcError {
        RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(json!({"supported": supported, "requested": requested}))
    }

    /// The uniform refusal of a ticket.
    pub fn invalid_request_state() -> RpcError {
        RpcError::new(INVALID_PARAMS, INVALID_REQUEST_STATE_MESSAGE)
            .with_data(json!({"reason": INVALID_REQUEST_STATE_REASON}))
    }

    /// True for the uniform ticket refusal: -32602 with `data.reason` `invalid_request_state`.
    pub fn is_invalid_request_state(&self) -> bool {
        self.code == INVALID_PARAMS
            && self.data.as_ref().and_then(|d| d.get("reason"))
                == Some(&json!(INVALID_REQUEST_STATE_REASON))
    }

    /// The error object as JSON: `code`, `message`, and `data` when there is some.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }

    /// Reads an error object; `None` unless it has an integer `code` and a text `message`.
    pub fn from_value(v: &Value) -> Option<RpcError> {
        Some(RpcError {
            code: v.get("code")?.as_i64()?,
            message: v.get("message")?.as_str()?.to_owned(),
            data: v.get("data").cloned(),
        })
    }

    /// The HTTP status a Streamable HTTP server sends with this error when it was raised
    /// before dispatch (a ticket refusal is in-band, status 200).
    pub fn http_status(&self) -> u16 {
        match self.code {
            METHOD_NOT_FOUND => 404,
            PARSE_ERROR
            | INVALID_REQUEST
            | HEADER_MISMATCH
            | MISSING_REQUIRED_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION => 400,
            _ => 200,
        }
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}
