//! The real `mrtr-server --http` binary under misuse: every abuse of a ticket gets the uniform
//! -32602, bad HTTP gets a clear error, and the server keeps serving throughout.

mod common;

use common::*;
use serde_json::{json, Value};

fn ticket(s: &Running, who: &str, env: &str) -> String {
    s.ticket(who, env)
}

fn assert_refused(label: &str, (status, r): (u16, Value)) {
    assert_eq!(status, 200, "{label}");
    assert_eq!(
        r["error"],
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}}),
        "{label}"
    );
}

fn assert_serving(s: &Running) {
    assert!(s.serving());
}

#[test]
fn every_misuse_is_refused_and_the_server_keeps_serving() {
    let s = start(&["--single-use"]);

    // Tampered: the readable payload edited, the old signature kept.
    let t = ticket(&s, "bob", "staging");
    let edited = mrtr_core::ticket::rewrite_payload(&t, |p| p.replace("staging", "prod")).unwrap();
    assert_refused(
        "tampered",
        s.post(Some("bob"), &deploy(2, "staging", Some(&edited))),
    );
    assert_serving(&s);

    // Stolen: alice presents bob's ticket.
    assert_refused(
        "stolen",
        s.post(Some("alice"), &deploy(3, "staging", Some(&t))),
    );

    // Spent on another request: a staging ticket on a prod deploy.
    assert_refused(
        "other request",
        s.post(Some("bob"), &deploy(4, "prod", Some(&t))),
    );

    // Honest, then the same retry again: single use refuses the second.
    let (status, ok) = s.post(Some("bob"), &deploy(5, "staging", Some(&t)));
    assert_eq!(
        (status, ok["result"]["content"][0]["text"].clone()),
        (200, json!("deployed to staging, release 2026.11.30-2"))
    );
    assert_refused(
        "second redemption",
        s.post(Some("bob"), &deploy(6, "staging", Some(&t))),
    );
    assert_serving(&s);
}

#[test]
fn an_expired_ticket_is_refused() {
    let s = start(&["--ttl", "1"]);
    let t = ticket(&s, "bob", "staging");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_refused(
        "expired",
        s.post(Some("bob"), &deploy(2, "staging", Some(&t))),
    );
    assert_serving(&s);
}

#[test]
fn bad_http_gets_clear_errors() {
    let s = start(&[]);
    let (status, body) = s.post_raw("{not json", &[]);
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        -32700
    );

    // The standard headers: each one missing or different is -32020 with 400.
    let call = deploy(1, "staging", None);
    let msg = call.to_string();
    let all = standard_headers(&call);
    for i in 0..all.len() {
        let mut missing: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (name, _) = missing.remove(i);
        let (status, body) = s.post_raw(&msg, &missing);
        let e: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (status, e["error"]["code"].clone()),
            (400, json!(-32020)),
            "{name} missing"
        );
        assert_eq!(e["id"], 1, "the id is echoed");
        let mut wrong: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
        wrong[i].1 = "other";
        let (status, _) = s.post_raw(&msg, &wrong);
        assert_eq!(status, 400, "{name} different");
    }
    let headers: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, _) = s.post_raw(&msg, &headers);
    assert_eq!(status, 200);

    // DNS rebinding: another Host or a foreign Origin is refused with 403.
    let (status, body) = s.post_with_host("evil.example.com", &msg, &headers);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("evil.example.com"));
    let port = s
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_owned();
    assert_eq!(
        s.post_with_host(&format!("localhost:{port}"), &msg, &headers)
            .0,
        200
    );
    let mut evil = headers.clone();
    evil.push(("Origin", "http://evil.example.com"));
    assert_eq!(s.post_raw(&msg, &evil).0, 403);
    // The same host on another port is another origin (another program on this machine).
    let mut other_port = headers.clone();
    other_port.push(("Origin", "http://localhost:1234"));
    assert_eq!(
        s.post_with_host(&format!("localhost:{port}"), &msg, &other_port)
            .0,
        403
    );
    let origin = format!("http://localhost:{port}");
    let mut local = headers.clone();
    local.push(("Origin", origin.as_str()));
    assert_eq!(
        s.post_with_host(&format!("localhost:{port}"), &msg, &local)
            .0,
        200
    );

    // A request whose id is null is no request: 400, -32600, whatever its headers.
    let mut null_id = call.clone();
    null_id["id"] = Value::Null;
    let (status, body) = s.post_raw(&null_id.to_string(), &headers);
    let e: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (400, json!(-32600)),
        "{body}"
    );
    assert_eq!(e["id"], Value::Null);

    // Not JSON by its type: 415, with a JSON-RPC error.
    let (status, body) = s.post_raw_typed(&msg, "text/plain", &headers);
    assert_eq!(status, 415);
    assert!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("application/json")
    );

    let (status, r) = s.post(
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
    );
    assert_eq!((status, r["error"]["code"].clone()), (404, json!(-32601)));
    let (status, r) = s.post(
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
    );
    assert_eq!((status, r["error"]["code"].clone()), (400, json!(-32602)));
    let (status, r) = s.post(None, &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert_eq!((status, r["error"]["code"].clone()), (400, json!(-32022)));
    // Only the version this front serves: 2025-11-25 needs a handshake HTTP does not offer.
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));

    // The server closes the connection after a 413, so this one gets an agent of its own.
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(2 << 20));
    let fresh: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    // Either the 413 arrives, or the server hangs up mid-upload; both refuse the body.
    if let Ok(mut r) = fresh
        .post(&s.url)
        .header("Content-Type", "application/json")
        .send(big)
    {
        assert_eq!(r.status().as_u16(), 413);
        let body = r.body_mut().read_to_string().unwrap_or_default();
        assert!(body.is_empty() || body.contains("limit"), "{body}");
    }

    let fresh: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut get = fresh.get(&s.url).call().unwrap();
    assert_eq!(get.status().as_u16(), 405);
    let _ = get.body_mut().read_to_string();
    assert_serving(&s);
}

#[test]
fn single_use_holds_against_laundering_and_racing_retries() {
    let s = std::sync::Arc::new(start(&["--single-use"]));

    // Laundering: spend the ticket, then send it without the answer to collect a fresh one.
    let t = ticket(&s, "bob", "staging");
    let (_, ok) = s.post(Some("bob"), &deploy(2, "staging", Some(&t)));
    assert_eq!(
        ok["result"]["content"][0]["text"],
        "deployed to staging, release 2026.11.30-2"
    );
    let mut stripped = deploy(3, "staging", Some(&t));
    stripped["params"]
        .as_object_mut()
        .unwrap()
        .remove("inputResponses");
    assert_refused("laundering", s.post(Some("bob"), &stripped));

    // Racing: the same honest retry sent on eight connections at once deploys once.
    for trial in 0..5 {
        let t = ticket(&s, "bob", "staging");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (s, t, barrier) = (s.clone(), t.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let (_, r) = s.post(Some("bob"), &deploy(100 + i, "staging", Some(&t)));
                    r["result"]["content"][0]["text"] == "deployed to staging, release 2026.11.30-2"
                })
            })
            .collect();
        let deployed = handles
            .into_iter()
            .filter(|_| true)
            .map(|h| h.join().unwrap())
            .filter(|d| *d)
            .count();
        assert_eq!(deployed, 1, "trial {trial}");
    }
    assert_serving(&s);
}

/// The renewal attack of issue #23 against the real binary, as measured there: mint at 0 s,
/// send a sampling-shaped answer at 1.2 s, and try what came back at 2.8 s, after the first
/// ticket's 2 s expired. Refused now; with single use the wrong-kind answer spends nothing,
/// so bob's honest retry still deploys, once.
#[test]
fn a_wrong_kind_answer_neither_renews_nor_spends_a_ticket() {
    let sampled =
        json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"});
    for extra in [&[][..], &["--single-use"][..]] {
        let mut args = vec!["--ttl", "2"];
        args.extend_from_slice(extra);
        let s = start(&args);
        // The server's clock counts whole seconds: mint just after one begins, so 1.2 s
        // later is inside the 2 s life and 2.8 s later is past it, every run.
        let into_second = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_millis();
        std::thread::sleep(std::time::Duration::from_millis(u64::from(
            1000 - into_second,
        )));
        let t = ticket(&s, "bob", "staging");
        std::thread::sleep(std::time::Duration::from_millis(1200));
        let mut wrong = deploy(2, "staging", Some(&t));
        wrong["params"]["inputResponses"] = json!({"confirm": sampled});
        let (_, r) = s.post(Some("bob"), &wrong);
        assert_eq!(
            r["result"]["resultType"], "input_required",
            "{extra:?}: {r}"
        );
        let renewed = r["result"]["requestState"].as_str().unwrap().to_owned();
        if extra.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(1600));
            assert_refused(
                "the re-asked ticket after the first one expired",
                s.post(Some("bob"), &deploy(3, "staging", Some(&renewed))),
            );
        } else {
            let (_, r) = s.post(Some("bob"), &deploy(3, "staging", Some(&t)));
            assert!(
                deployed(&r),
                "the honest retry after a wrong-kind answer deploys: {r}"
            );
            assert_refused(
                "a copy of the flow",
                s.post(Some("bob"), &deploy(4, "staging", Some(&renewed))),
            );
        }
    }
}
