//! The real `mrtr-server --http` binary under misuse: every abuse of a ticket gets the uniform
//! -32602, bad HTTP gets a clear error, and the server keeps serving throughout.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

const KEY: &str = "6d72424242424242424242424242424242424242424242424242424242424242";

struct Running {
    child: Child,
    url: String,
    agent: ureq::Agent,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtr-server"))
        .args(["--http", "127.0.0.1:0", "--key-hex", KEY])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .expect("mrtr-server starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("a listening line").unwrap();
        if let Some(rest) = line.strip_prefix("mrtr-server: listening on ") {
            break rest.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    Running { child, url, agent }
}

impl Running {
    fn post_raw(&self, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = req.send(body.to_owned()).unwrap();
        (
            resp.status().as_u16(),
            resp.body_mut().read_to_string().unwrap_or_default(),
        )
    }

    fn post(&self, who: Option<&str>, msg: &Value) -> (u16, Value) {
        let auth = who.map(|w| format!("Bearer {w}-token"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let (status, body) = self.post_raw(&msg.to_string(), &headers);
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }
}

fn deploy(id: i64, env: &str, ticket: Option<&str>) -> Value {
    let mut params = json!({
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        "name": "deploy", "arguments": {"env": env},
    });
    if let Some(t) = ticket {
        params["requestState"] = json!(t);
        params["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn ticket(s: &Running, who: &str, env: &str) -> String {
    let (status, r) = s.post(Some(who), &deploy(1, env, None));
    assert_eq!(status, 200);
    r["result"]["requestState"]
        .as_str()
        .expect("a ticket")
        .to_owned()
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
    let discover = json!({"jsonrpc": "2.0", "id": 99, "method": "server/discover", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (status, r) = s.post(None, &discover);
    assert_eq!(status, 200);
    assert_eq!(r["result"]["supportedVersions"], json!(["2026-07-28"]));
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
        (200, json!("deployed to staging"))
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

    let msg = deploy(1, "staging", None).to_string();
    let (status, body) = s.post_raw(&msg, &[("Mcp-Method", "tools/list")]);
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        -32020
    );
    let (status, _) = s.post_raw(&msg, &[("Mcp-Name", "other"), ("Mcp-Method", "tools/call")]);
    assert_eq!(status, 400);

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

    // The server closes the connection after a 413, so this one gets an agent of its own.
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(2 << 20));
    let fresh: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    // Either the 413 arrives, or the server hangs up mid-upload; both refuse the body.
    if let Ok(r) = fresh.post(&s.url).send(big) {
        assert_eq!(r.status().as_u16(), 413);
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
