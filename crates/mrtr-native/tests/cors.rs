//! The real `mrtr-server --http --cors-origin …` called as a browser would from a page on
//! another origin: the preflight, Private Network Access, the call itself, and every origin,
//! method or header it must still refuse. Loopback only; each server is stopped by its PID.

use std::process::{Command, Stdio};

mod common;

use common::*;

const PAGE: &str = "https://app.example.com";

fn cors_server() -> Running {
    start(&[
        "--cors-origin",
        PAGE,
        "--cors-origin",
        "http://127.0.0.1:9999",
        "--name",
        "replica-a",
    ])
}

/// Status and headers (names lowercase) of a response.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn cors_headers(&self) -> Vec<&str> {
        self.headers
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| k.starts_with("access-control-"))
            .collect()
    }
}

fn answer(mut resp: ureq::http::Response<ureq::Body>) -> Answer {
    Answer {
        status: resp.status().as_u16(),
        headers: resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: resp.body_mut().read_to_string().unwrap_or_default(),
    }
}

fn options(s: &Endpoint, headers: &[(&str, &str)]) -> Answer {
    let mut req = s.agent.options(&s.url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    answer(req.call().unwrap())
}

/// The deploy call with its standard headers, from `origin`.
fn call_from(s: &Endpoint, origin: Option<&str>) -> Answer {
    let msg = deploy(1, "staging", None);
    let mut req = s
        .agent
        .post(&s.url)
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer bob-token");
    for (k, v) in standard_headers(&msg) {
        req = req.header(k, v);
    }
    if let Some(o) = origin {
        req = req.header("Origin", o);
    }
    answer(req.send(msg.to_string()).unwrap())
}

fn preflight(origin: &str, headers: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Origin", origin.to_owned()),
        ("Access-Control-Request-Method", "POST".to_owned()),
        ("Access-Control-Request-Headers", headers.to_owned()),
    ]
}

fn pairs<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

const MCP_HEADERS: &str =
    "authorization,content-type,mcp-method,mcp-name,mcp-param-region,mcp-protocol-version";

#[test]
fn a_listed_origins_preflight_is_answered_with_the_mcp_headers() {
    let s = cors_server();
    let p = preflight(PAGE, MCP_HEADERS);
    let a = options(&s, &pairs(&p));
    assert_eq!(a.status, 204, "{}", a.body);
    assert_eq!(a.get("access-control-allow-origin"), Some(PAGE));
    assert!(a.get("vary").unwrap().contains("Origin"));
    let methods = a.get("access-control-allow-methods").unwrap();
    for m in ["POST", "GET", "DELETE", "OPTIONS"] {
        assert!(methods.contains(m), "{methods}");
    }
    assert_eq!(
        a.get("access-control-allow-headers"),
        Some("authorization, content-type, mcp-method, mcp-name, mcp-param-region, mcp-protocol-version")
    );
    assert_eq!(a.get("access-control-max-age"), Some("600"));
    assert_eq!(a.get("access-control-allow-private-network"), None);
    // Names are compared case-insensitively, as browsers may send them in any case.
    let p = preflight(
        "http://127.0.0.1:9999",
        "Content-Type, MCP-Protocol-Version, Mcp-Param-Env",
    );
    let a = options(&s, &pairs(&p));
    assert_eq!(a.status, 204, "{}", a.body);
    assert_eq!(
        a.get("access-control-allow-origin"),
        Some("http://127.0.0.1:9999")
    );
}

#[test]
fn private_network_access_is_granted_only_when_asked() {
    let s = cors_server();
    let mut p = preflight(PAGE, "content-type");
    p.push(("Access-Control-Request-Private-Network", "true".into()));
    let a = options(&s, &pairs(&p));
    assert_eq!(a.status, 204, "{}", a.body);
    assert_eq!(a.get("access-control-allow-private-network"), Some("true"));
    let a = options(&s, &pairs(&preflight(PAGE, "content-type")));
    assert_eq!(
        (a.status, a.get("access-control-allow-private-network")),
        (204, None)
    );
    let mut p = preflight("https://evil.example.com", "content-type");
    p.push(("Access-Control-Request-Private-Network", "true".into()));
    let a = options(&s, &pairs(&p));
    assert_eq!(a.status, 403);
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
}

#[test]
fn other_origins_methods_and_headers_are_refused_with_403_and_no_cors_headers() {
    let s = cors_server();
    for origin in [
        "https://evil.example.com",
        "https://app.example.com.evil.org",
        "http://app.example.com",
        "https://app.example.com:8443",
        "https://app.example.com/",
        "HTTPS://APP.EXAMPLE.COM",
        "http://127.0.0.1:9998",
        "http://localhost:9999",
        "null",
        "*",
    ] {
        let a = options(&s, &pairs(&preflight(origin, "content-type")));
        assert_eq!(a.status, 403, "{origin}");
        assert!(a.cors_headers().is_empty(), "{origin}: {:?}", a.headers);
    }
    for bad in [
        "content-type, x-evil",
        "cookie",
        "mcp-session-id",
        "mcp-param-",
        "mcp-paramx",
    ] {
        let a = options(&s, &pairs(&preflight(PAGE, bad)));
        assert_eq!(a.status, 403, "{bad}");
        assert!(a.body.contains("is not one a page may send"), "{}", a.body);
        assert!(a.cors_headers().is_empty(), "{bad}: {:?}", a.headers);
    }
    let a = options(
        &s,
        &[("Origin", PAGE), ("Access-Control-Request-Method", "PUT")],
    );
    assert_eq!(a.status, 403);
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
    // A listed origin does not lift the Host check (DNS rebinding).
    let (status, body) = s.post_with_host(
        "evil.example.com",
        &deploy(1, "staging", None).to_string(),
        &[("Origin", PAGE)],
    );
    assert_eq!(status, 403, "{body}");
    // A call from an unlisted origin is still refused.
    let a = call_from(&s, Some("https://evil.example.com"));
    assert_eq!(a.status, 403, "{}", a.body);
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
    assert!(s.serving());
}

#[test]
fn a_call_from_a_listed_origin_passes_and_names_its_replica_to_the_page() {
    let s = cors_server();
    let a = call_from(&s, Some(PAGE));
    assert_eq!(a.status, 200, "{}", a.body);
    let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["result"]["resultType"], "input_required", "{v}");
    assert_eq!(a.get("access-control-allow-origin"), Some(PAGE));
    assert!(a.get("vary").unwrap().contains("Origin"));
    let exposed = a.get("access-control-expose-headers").unwrap();
    assert!(exposed.eq_ignore_ascii_case("mrtr-replica"), "{exposed}");
    assert_eq!(a.get("mrtr-replica"), Some("replica-a"));
    // A same-origin or non-browser call (no Origin) gets the name too, and no CORS headers.
    let a = call_from(&s, None);
    assert_eq!((a.status, a.get("mrtr-replica")), (200, Some("replica-a")));
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
    // GET (stateless: 405) is readable by the page too.
    let resp = s.agent.get(&s.url).header("Origin", PAGE).call().unwrap();
    let a = answer(resp);
    assert_eq!(a.status, 405);
    assert_eq!(a.get("access-control-allow-origin"), Some(PAGE));
}

#[test]
fn without_cors_origin_nothing_changes_but_the_replica_header() {
    let s = start(&["--name", "replica-b"]);
    let a = call_from(&s, Some(PAGE));
    assert_eq!(a.status, 403, "{}", a.body);
    assert_eq!(a.get("mrtr-replica"), Some("replica-b"));
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
    let a = options(&s, &pairs(&preflight(PAGE, "content-type")));
    assert_eq!(a.status, 405);
    assert!(a.cors_headers().is_empty(), "{:?}", a.headers);
    // A name that is not plain ASCII travels Base64-encoded, never as bad header bytes.
    let s = start(&["--name", "réplica"]);
    let a = call_from(&s, None);
    assert_eq!(a.get("mrtr-replica"), Some("=?base64?csOpcGxpY2E=?="));
}

#[test]
fn a_bad_cors_origin_stops_the_server_at_startup_with_one_sentence() {
    for (bad, says) in [
        ("*", "no wildcards"),
        ("https://*.example.com", "no wildcards"),
        ("https://app.example.com/", "no path"),
        ("https://app.example.com/mcp", "no path"),
        ("app.example.com", "is not an origin"),
        ("ftp://app.example.com", "is not an origin"),
        ("null", "is not an origin"),
        ("", "is not an origin"),
        ("https://app.example.com:99999", "is not an origin"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mrtr-server"))
            .args(["--http", "127.0.0.1:0", "--key-hex", KEY])
            .args(["--cors-origin", PAGE, "--cors-origin", bad])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(!err.contains("panicked"), "{bad}: {err}");
        assert!(!err.contains("listening"), "{bad}: {err}");
        let line = err.trim_end();
        assert_eq!(line.lines().count(), 1, "{bad}: {err}");
        assert!(
            line.starts_with("mrtr-server: --cors-origin "),
            "{bad}: {err}"
        );
        assert!(line.contains(says), "{bad}: {err}");
    }
}
