//! The HTTP front: arbitrary headers and body through every check of a POST to `/mcp` and
//! the engine behind them, without sockets. Must never panic, and whatever it sends as JSON
//! (or as SSE `data:` lines) must be JSON.
//!
//! Input: one byte of options, then up to four requests separated by a line holding one NUL
//! (the same front and store serve them all, so a call and its retry can both be in one
//! input). A request is header lines `name: value` (split at the first `:`; names and values
//! HTTP rejects are dropped), an empty line, then the body.
#![no_main]

use http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use mrtr_core::{FixedClock, Seal, SeededEntropy};
use mrtr_native::http_front::{HttpFront, HttpOptions, HttpReply};
use mrtr_native::ServerOptions;
use serde_json::Value;

fn front(opts: u8) -> HttpFront {
    let server = ServerOptions {
        single_use: opts & 2 != 0,
        seal: if opts & 4 != 0 {
            Seal::Sealed
        } else {
            Seal::Signed
        },
        keys: vec![("k1".into(), vec![42; 32])],
        name: "fuzz".into(),
        ..ServerOptions::default()
    }
    .build()
    .expect("the fuzz server builds");
    let mut http = HttpOptions {
        log_checks: opts & 8 != 0,
        blocking_store: opts & 16 != 0,
        ..HttpOptions::default()
    };
    if opts & 1 != 0 {
        http.allowed_hosts = None;
    }
    HttpFront::new(server, http)
}

fn split_request(req: &[u8]) -> (HeaderMap, &[u8]) {
    let (head, body) = match req.windows(2).position(|w| w == b"\n\n") {
        Some(at) => (&req[..at], &req[at + 2..]),
        None => (req, &[][..]),
    };
    let mut headers = HeaderMap::new();
    for line in head.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let value = &line[colon + 1..];
        let value = value.strip_prefix(b" ").unwrap_or(value);
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(value),
        ) {
            headers.append(n, v);
        }
    }
    (headers, body)
}

fn check(reply: &HttpReply) {
    let content_type = reply
        .headers
        .iter()
        .find(|(n, _)| *n == "content-type")
        .map(|(_, v)| *v);
    match content_type {
        Some("application/json") => {
            let v: Value = serde_json::from_str(&reply.body).expect("a JSON reply is JSON");
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
        }
        Some("text/event-stream") => {
            assert_eq!(reply.status, 200);
            for data in reply.body.lines().filter_map(|l| l.strip_prefix("data: ")) {
                serde_json::from_str::<Value>(data).expect("an SSE message is JSON");
            }
        }
        None => assert_eq!((reply.status, reply.body.as_str()), (202, "")),
        Some(other) => panic!("unexpected content type {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&opts, rest)) = data.split_first() else {
        return;
    };
    let front = front(opts);
    let clock = FixedClock(1_800_000_000_000);
    let mut rng = SeededEntropy::new(1);
    let mut requests = Vec::new();
    let mut from = 0;
    while let Some(at) = rest[from..].windows(3).position(|w| w == b"\n\0\n") {
        requests.push(&rest[from..from + at]);
        from += at + 3;
    }
    requests.push(&rest[from..]);
    for req in requests.into_iter().take(4) {
        let (headers, body) = split_request(req);
        let reply = front.respond(&headers, body, &clock, &mut rng, &|f| f());
        check(&reply);
    }
});
