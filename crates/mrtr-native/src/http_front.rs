//! Stateless Streamable HTTP at `/mcp`: one POST per request, JSON responses.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use mrtr_core::error::RpcError;
use mrtr_core::wire::{error_response, RequestId, META_PROTOCOL_VERSION};
use mrtr_core::{CallContext, Principal, Server};

use crate::os::{OsEntropy, SystemClock};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 1 << 20;

#[derive(Clone)]
struct AppState {
    server: Arc<Mutex<Server>>,
    log_checks: bool,
}

pub fn router(server: Server, log_checks: bool) -> Router {
    let state = AppState {
        server: Arc::new(Mutex::new(server)),
        log_checks,
    };
    Router::new()
        .route(
            "/mcp",
            post(handle_post).get(not_allowed).delete(not_allowed),
        )
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn not_allowed() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, "POST")],
        "This server is stateless: POST one JSON-RPC request per call.\n",
    )
        .into_response()
}

fn json_response(status: u16, body: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn handle_post(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let err = RpcError::parse_error(format!("Parse error: the body is not JSON ({e})"));
            return json_response(400, &error_response(None, &err));
        }
    };
    if let Err(err) = check_headers(&headers, &value) {
        let id = value.get("id").and_then(RequestId::from_value);
        return json_response(400, &error_response(id.as_ref(), &err));
    }
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let principal = Principal::from_bearer(auth);
    let reply = {
        let Ok(mut server) = state.server.lock() else {
            return json_response(
                500,
                &error_response(None, &RpcError::internal("server state poisoned")),
            );
        };
        let mut entropy = OsEntropy;
        server.handle(
            &value,
            &mut CallContext {
                principal: &principal,
                clock: &SystemClock,
                entropy: &mut entropy,
            },
        )
    };
    if state.log_checks {
        for e in &reply.trace {
            eprintln!("[mrtr-server] {principal}: {}", crate::describe(e));
        }
    }
    match reply.response {
        Some(body) => json_response(reply.http_status, &body),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// The Streamable HTTP headers must agree with the body (-32020 when they do not). A header
/// that is absent is not checked.
pub fn check_headers(headers: &HeaderMap, body: &Value) -> Result<(), RpcError> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let (Some(h), Some(b)) = (
        get("mcp-protocol-version"),
        body.pointer("/params/_meta")
            .and_then(|m| m.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str),
    ) {
        if h != b {
            return Err(RpcError::header_mismatch(format!(
                "MCP-Protocol-Version header {h:?} does not match _meta {b:?}"
            )));
        }
    }
    let method = body.get("method").and_then(Value::as_str);
    if let Some(h) = get("mcp-method") {
        if Some(h) != method {
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Method header {h:?} does not match the body's method {method:?}"
            )));
        }
    }
    if let Some(h) = get("mcp-name") {
        let key = if method == Some("resources/read") {
            "uri"
        } else {
            "name"
        };
        let name = body
            .pointer(&format!("/params/{key}"))
            .and_then(Value::as_str);
        if Some(decode_name_header(h).as_str()) != name {
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Name header {h:?} does not match params.{key} {name:?}"
            )));
        }
    }
    Ok(())
}

/// Non-ASCII names travel base64-encoded between `=?base64?` and `?=`.
fn decode_name_header(h: &str) -> String {
    h.strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
        .and_then(|b| STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| h.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn headers_must_match_the_body() {
        let body = json!({"method": "tools/call", "params": {"name": "deploy", "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
        assert!(check_headers(
            &headers(&[
                ("mcp-method", "tools/call"),
                ("mcp-name", "deploy"),
                ("mcp-protocol-version", "2026-07-28")
            ]),
            &body
        )
        .is_ok());
        assert!(check_headers(&HeaderMap::new(), &body).is_ok());
        for bad in [
            [("mcp-method", "tools/list")],
            [("mcp-name", "other")],
            [("mcp-protocol-version", "2025-11-25")],
        ] {
            assert_eq!(
                check_headers(&headers(&bad), &body).unwrap_err().code,
                -32020
            );
        }
        let read = json!({"method": "resources/read", "params": {"uri": "mrtr://x"}});
        assert!(check_headers(&headers(&[("mcp-name", "mrtr://x")]), &read).is_ok());
        let unicode = json!({"method": "tools/call", "params": {"name": "déploy"}});
        let enc = format!("=?base64?{}?=", STANDARD.encode("déploy"));
        assert!(check_headers(&headers(&[("mcp-name", &enc)]), &unicode).is_ok());
    }
}
