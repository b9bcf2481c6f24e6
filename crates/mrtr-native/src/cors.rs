//! Cross-origin calls from a web page (`--cors-origin ORIGIN`), and the replica's name on
//! every response, as one axum layer around [`crate::http_front::router`].
//!
//! An origin is listed exactly (scheme, host and port; no wildcard). For a listed origin:
//!
//! - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered
//!   204 with `Access-Control-Allow-Origin: <that origin>`, `Vary`, the methods, the requested
//!   headers when every one of them is an MCP header the server reads ([`ALLOWED_HEADERS`],
//!   and `Mcp-Param-*` by prefix, case-insensitive), `Access-Control-Max-Age`, and
//!   `Access-Control-Allow-Private-Network: true` when the preflight asks for it (a page on a
//!   public host calling a server on loopback). A requested method or header outside those,
//!   or a `Host` the server does not answer to, is 403 with no CORS headers.
//! - any other request passes the front's DNS-rebinding check on its `Origin` (its `Host` is
//!   still checked) and its response carries `Access-Control-Allow-Origin`, `Vary: Origin`
//!   and `Access-Control-Expose-Headers` naming [`REPLICA_HEADER`].
//!
//! A preflight from any other origin is 403 with no CORS headers, and any other request from
//! one meets the front's check unchanged (403 unless its host is one the server answers to).
//! With no `--cors-origin` at all, preflights are not answered here (the route's 405).
//!
//! Every response names the replica that served it: [`REPLICA_HEADER`] carries its `--name`
//! (as `=?base64?…?=` when the name is not plain visible ASCII).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::http_front::{check_host_and_origin, parse_origin};

/// The response header naming the replica (its `--name`) that served a request.
pub const REPLICA_HEADER: &str = "mrtr-replica";
/// The request headers a listed origin may send (lowercase), besides `Mcp-Param-*`.
pub const ALLOWED_HEADERS: [&str; 5] = [
    "content-type",
    "authorization",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
];
/// The prefix of the tool parameter headers a listed origin may send (lowercase).
pub const PARAM_PREFIX: &str = "mcp-param-";
/// The methods a preflight may ask for: POST, and GET and DELETE so that a page reads the
/// 405 a stateless server answers them with instead of failing on CORS.
pub const ALLOWED_METHODS: [&str; 3] = ["POST", "GET", "DELETE"];
/// How long a browser may cache a preflight's answer, in seconds.
pub const MAX_AGE_S: u32 = 600;

/// Parses one `--cors-origin` value: `http://` or `https://`, a host (a name, an IPv4
/// address or a bracketed IPv6 address) and an optional port, nothing more. The result is
/// the origin as browsers serialise it, which is what an `Origin` header is compared to,
/// byte for byte: scheme and host lowercased, IPv6 in its canonical form, and the scheme's
/// default port (80, 443) dropped. A path (even `/`), a wildcard, user info, a query, `null`
/// or another scheme is an `Err` in a sentence.
pub fn parse_cors_origin(text: &str) -> Result<String, String> {
    const SHAPE: &str = "an origin is http:// or https://, a host and an optional port, e.g. https://app.example.com or http://127.0.0.1:5173";
    if text.contains('*') {
        return Err(format!(
            "{text:?}: no wildcards: name each origin exactly ({SHAPE})"
        ));
    }
    if let Some((_, rest)) = text.split_once("://") {
        if rest.contains('/') {
            return Err(format!(
                "{text:?}: no path, not even a trailing slash ({SHAPE})"
            ));
        }
    }
    let o = parse_origin(text).ok_or_else(|| format!("{text:?} is not an origin ({SHAPE})"))?;
    let default = if o.scheme == "https" { 443 } else { 80 };
    Ok(match o.port.filter(|p| *p != default) {
        Some(p) => format!("{}://{}:{p}", o.scheme, o.host),
        None => format!("{}://{}", o.scheme, o.host),
    })
}

/// What the layer needs: the listed origins, the replica's name, and the host names the
/// front answers to (a preflight's `Host` is checked as a request's would be).
#[derive(Clone, Debug, Default)]
pub struct CorsOptions {
    /// Origins as [`parse_cors_origin`] returns them.
    pub origins: Vec<String>,
    /// This replica's `--name`, sent in [`REPLICA_HEADER`].
    pub name: String,
    /// As [`crate::http_front::HttpOptions::allowed_hosts`].
    pub allowed_hosts: Option<Vec<String>>,
}

struct Cors {
    opts: CorsOptions,
    replica: Option<HeaderValue>,
}

/// `router` behind the layer: CORS for the listed origins, and the replica's name on every
/// response.
pub fn wrap(router: Router, opts: CorsOptions) -> Router {
    let replica = HeaderValue::from_str(&crate::headers::encode_value(&opts.name)).ok();
    let state = Arc::new(Cors { opts, replica });
    router.layer(axum::middleware::from_fn_with_state(state, layer))
}

async fn layer(State(cors): State<Arc<Cors>>, mut req: Request, next: Next) -> Response {
    let listed = listed_origin(&cors.opts.origins, req.headers());
    let is_preflight = req.method() == Method::OPTIONS
        && req.headers().contains_key(header::ORIGIN)
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut res = if is_preflight && !cors.opts.origins.is_empty() {
        match preflight(&cors.opts, req.headers()) {
            Ok(res) => res,
            Err(why) => {
                eprintln!("[{}] refused preflight: {why}", cors.opts.name);
                (
                    StatusCode::FORBIDDEN,
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    format!("{why}\n"),
                )
                    .into_response()
            }
        }
    } else {
        if listed.is_some() {
            // A listed origin is accepted as it is; the front still checks the Host.
            req.headers_mut().remove(header::ORIGIN);
        }
        let mut res = next.run(req).await;
        if let Some(origin) = listed {
            let h = res.headers_mut();
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            h.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static("Mrtr-Replica"),
            );
        }
        if !cors.opts.origins.is_empty() {
            res.headers_mut()
                .append(header::VARY, HeaderValue::from_static("Origin"));
        }
        res
    };
    if let Some(name) = &cors.replica {
        res.headers_mut()
            .insert(HeaderName::from_static(REPLICA_HEADER), name.clone());
    }
    res
}

/// The request's `Origin`, when it is exactly one of `origins`.
fn listed_origin(origins: &[String], headers: &HeaderMap) -> Option<HeaderValue> {
    let v = headers.get(header::ORIGIN)?;
    let text = v.to_str().ok()?;
    origins.iter().any(|o| o == text).then(|| v.clone())
}

/// The answer to a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`):
/// 204 with the CORS headers, or `Err` with why it is refused (403, no CORS headers).
pub fn preflight(opts: &CorsOptions, headers: &HeaderMap) -> Result<Response, String> {
    let origin = listed_origin(&opts.origins, headers).ok_or_else(|| {
        format!(
            "Forbidden: Origin {:?} is not one this server answers cross-origin calls from ({})",
            String::from_utf8_lossy(
                headers
                    .get(header::ORIGIN)
                    .map(HeaderValue::as_bytes)
                    .unwrap_or_default()
            ),
            opts.origins.join(", ")
        )
    })?;
    let mut without_origin = headers.clone();
    without_origin.remove(header::ORIGIN);
    check_host_and_origin(&without_origin, opts.allowed_hosts.as_deref())?;
    let method = headers
        .get(header::ACCESS_CONTROL_REQUEST_METHOD)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !ALLOWED_METHODS.contains(&method) {
        return Err(format!(
            "Forbidden: method {method:?} is not one a page may call with ({})",
            ALLOWED_METHODS.join(", ")
        ));
    }
    let mut requested = Vec::new();
    for v in headers.get_all(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        let v = v.to_str().map_err(|_| {
            "Forbidden: Access-Control-Request-Headers is not visible ASCII".to_owned()
        })?;
        for name in v.split(',').map(|n| n.trim_matches([' ', '\t'])) {
            if name.is_empty() {
                continue;
            }
            let lower = name.to_ascii_lowercase();
            let param = lower
                .strip_prefix(PARAM_PREFIX)
                .is_some_and(|rest| !rest.is_empty());
            if !(param || ALLOWED_HEADERS.contains(&lower.as_str())) {
                return Err(format!(
                    "Forbidden: header {name:?} is not one a page may send (Content-Type, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*)"
                ));
            }
            requested.push(lower);
        }
    }
    let mut res = StatusCode::NO_CONTENT.into_response();
    let h = res.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.insert(
        header::VARY,
        HeaderValue::from_static(
            "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, Access-Control-Request-Private-Network",
        ),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST, GET, DELETE, OPTIONS"),
    );
    if !requested.is_empty() {
        // Each name is a visible-ASCII slice of a header value, so this cannot fail.
        if let Ok(v) = HeaderValue::from_str(&requested.join(", ")) {
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
        }
    }
    h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(MAX_AGE_S));
    let private = headers
        .get("access-control-request-private-network")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
    if private {
        h.insert(
            "access-control-allow-private-network",
            HeaderValue::from_static("true"),
        );
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_parsed_strictly_and_serialised_as_browsers_send_them() {
        for (given, origin) in [
            ("https://app.example.com", "https://app.example.com"),
            ("HTTPS://App.Example.COM", "https://app.example.com"),
            ("https://app.example.com:443", "https://app.example.com"),
            ("http://app.example.com:80", "http://app.example.com"),
            ("http://127.0.0.1:9999", "http://127.0.0.1:9999"),
            ("https://app.example.com:80", "https://app.example.com:80"),
            ("http://[0:0:0:0:0:0:0:1]:5173", "http://[::1]:5173"),
        ] {
            assert_eq!(parse_cors_origin(given).as_deref(), Ok(origin), "{given}");
        }
        for (bad, says) in [
            ("*", "wildcard"),
            ("https://*.example.com", "wildcard"),
            ("https://app.example.com/", "trailing slash"),
            ("https://app.example.com/path", "path"),
            ("null", "not an origin"),
            ("", "not an origin"),
            ("app.example.com", "not an origin"),
            ("ftp://app.example.com", "not an origin"),
            ("https://user@app.example.com", "not an origin"),
            ("https://app.example.com?x", "not an origin"),
            ("https://app.example.com:0", "not an origin"),
            ("https://app.example.com:", "not an origin"),
            (" https://app.example.com", "not an origin"),
            ("https://app.example.com ", "not an origin"),
            ("https://bücher.example", "not an origin"),
        ] {
            let e = parse_cors_origin(bad).expect_err(bad);
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    fn opts() -> CorsOptions {
        CorsOptions {
            origins: vec!["https://app.example.com".into()],
            name: "replica-a".into(),
            allowed_hosts: Some(vec!["127.0.0.1".into()]),
        }
    }

    fn headers(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_bytes(v).unwrap());
        }
        h
    }

    #[test]
    fn a_preflight_never_panics_on_bad_bytes() {
        let base: [(&'static str, &[u8]); 3] = [
            ("host", b"127.0.0.1:3000"),
            ("origin", b"https://app.example.com"),
            ("access-control-request-method", b"POST"),
        ];
        assert!(preflight(&opts(), &headers(&base)).is_ok());
        for (k, v) in [
            ("origin", &b"https://app.example.com\xff"[..]),
            ("access-control-request-method", b"P\xffST"),
            ("access-control-request-headers", b"mcp-name,\xff"),
            ("access-control-request-headers", b"mcp-param-"),
            ("host", b"\xff"),
        ] {
            let mut h = headers(&base);
            h.insert(k, HeaderValue::from_bytes(v).unwrap());
            assert!(preflight(&opts(), &h).is_err(), "{k}: {v:?}");
        }
        // Two Access-Control-Request-Headers lines are read as one list.
        let mut h = headers(&base);
        h.append(
            "access-control-request-headers",
            HeaderValue::from_static("mcp-name"),
        );
        h.append(
            "access-control-request-headers",
            HeaderValue::from_static("x-evil"),
        );
        assert!(preflight(&opts(), &h).is_err());
    }
}
