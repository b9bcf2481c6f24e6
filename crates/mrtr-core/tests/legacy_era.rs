//! One connection, both eras: the 2025-11-25 shim runs the same handler.

mod common;

use common::*;
use mrtr_core::legacy::{Connection, Era};
use mrtr_core::{CallContext, FixedClock, Principal, SeededEntropy, Server};
use serde_json::{json, Value};

fn deliver(conn: &mut Connection, s: &mut Server, msg: Value) -> Vec<Value> {
    let p = Principal::user("stdio");
    let clock = FixedClock(EPOCH_MS);
    let mut rng = SeededEntropy::new(5);
    conn.receive(
        s,
        &msg,
        &mut CallContext {
            principal: &p,
            clock: &clock,
            entropy: &mut rng,
        },
    )
    .outgoing
}

fn initialize(conn: &mut Connection, s: &mut Server, caps: Value) {
    let out = deliver(
        conn,
        s,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "old", "version": "1"}}}),
    );
    assert_eq!(out[0]["result"]["protocolVersion"], "2025-11-25");
    assert!(deliver(
        conn,
        s,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .is_empty());
    assert_eq!(conn.era(), Some(Era::Legacy));
}

fn deploy_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}}})
}

#[test]
fn the_shim_asks_with_a_real_server_to_client_request() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let out = deliver(&mut conn, &mut s, deploy_call());
    assert_eq!(out.len(), 1);
    let ask = &out[0];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "Deploy to staging?");
    assert!(ask["id"].is_string());
    assert_eq!(conn.waiting(), 1);
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}}),
    );
    assert_eq!(out[0]["id"], 1);
    assert_eq!(
        out[0]["result"]["content"][0]["text"],
        "deployed to staging"
    );
    assert!(out[0]["result"].get("resultType").is_none());
    assert_eq!(conn.waiting(), 0);
}

#[test]
fn the_shim_runs_multi_round_handlers() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let mut out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_input_required_result_multi_round"}}),
    );
    for _ in 0..2 {
        let ask = out[0].clone();
        assert_eq!(ask["method"], "elicitation/create");
        out = deliver(
            &mut conn,
            &mut s,
            json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"ok": true}}}),
        );
    }
    assert_eq!(out[0]["id"], 7);
    assert!(out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("complete"));
}

#[test]
fn the_shim_respects_capabilities_declared_at_initialize() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({}));
    let out = deliver(&mut conn, &mut s, deploy_call());
    assert_eq!(out[0]["error"]["code"], -32021);
}

#[test]
fn a_client_error_answer_fails_the_tool_call_cleanly() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let ask = deliver(&mut conn, &mut s, deploy_call()).remove(0);
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -1, "message": "user closed the dialog"}}),
    );
    assert_eq!(out[0]["result"]["isError"], true);
}

#[test]
fn stateless_legacy_http_fails_cleanly_with_no_channel_to_ask_on() {
    let (mut s, mut conn) = (lab(), Connection::stateless());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let out = deliver(&mut conn, &mut s, deploy_call());
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[0]["result"]["isError"], true);
    assert!(out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("no channel"));
}

#[test]
fn legacy_ping_and_lists_work_without_envelopes() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({}));
    assert_eq!(
        deliver(
            &mut conn,
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        )[0]["result"],
        json!({})
    );
    assert!(deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    )[0]["result"]["tools"]
        .is_array());
    assert_eq!(
        deliver(
            &mut conn,
            &mut s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "nope"})
        )[0]["error"]["code"],
        -32601
    );
}

#[test]
fn discover_opens_the_modern_era_and_unknown_versions_get_32022() {
    let (mut s, mut conn) = (lab(), Connection::new());
    let out = deliver(&mut conn, &mut s, req(1, "server/discover", json!({})));
    assert_eq!(out[0]["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(conn.era(), Some(Era::Modern));
    let mut m = meta(all_caps());
    m["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let out = deliver(&mut conn, &mut s, req(2, "tools/list", json!({"_meta": m})));
    assert_eq!(out[0]["error"]["code"], -32022);
    assert_eq!(
        out[0]["error"]["data"]["supported"],
        json!(["2026-07-28", "2025-11-25"])
    );
}

#[test]
fn garbage_never_kills_the_connection() {
    let (mut s, mut conn) = (lab(), Connection::new());
    let p = Principal::user("stdio");
    let clock = FixedClock(EPOCH_MS);
    let mut rng = SeededEntropy::new(5);
    for line in [
        "",
        "{",
        "null",
        "[1,2]",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}",
    ] {
        let d = conn.receive_text(
            &mut s,
            line,
            &mut CallContext {
                principal: &p,
                clock: &clock,
                entropy: &mut rng,
            },
        );
        for m in d.outgoing {
            assert!(m.get("error").is_some(), "{line}: {m}");
        }
    }
    let out = deliver(&mut conn, &mut s, req(1, "server/discover", json!({})));
    assert!(out[0]["result"].is_object());
}
