//! One connection, both eras: the 2025-11-25 shim runs the same handler.

mod common;

use common::*;
use mrtr_core::legacy::{Connection, Era};
use mrtr_core::{CallContext, FixedClock, Principal, SeededEntropy, Server};
use serde_json::{json, Value};

fn deliver(conn: &mut Connection, s: &mut Server, msg: Value) -> Vec<Value> {
    deliver_at(conn, s, 0, msg)
}

fn deliver_at(conn: &mut Connection, s: &mut Server, at_s: u64, msg: Value) -> Vec<Value> {
    let p = Principal::user("stdio");
    let clock = FixedClock(EPOCH_MS + at_s * 1000);
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
    assert_eq!(
        ask["params"]["message"],
        "Deploy release 2026.11.30-2 to staging?"
    );
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
        "deployed to staging, release 2026.11.30-2"
    );
    assert!(out[0]["result"].get("resultType").is_none());
    assert_eq!(conn.waiting(), 0);
}

/// The multi-round fixture through the shim, its two questions answered at `at` seconds:
/// the message that ends the call.
fn multi_round_answered_at(at: [u64; 2]) -> Value {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let mut out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_input_required_result_multi_round"}}),
    );
    for t in at {
        let ask = out[0].clone();
        assert_eq!(ask["method"], "elicitation/create", "{out:?}");
        out = deliver_at(
            &mut conn,
            &mut s,
            t,
            json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"ok": true}}}),
        );
    }
    out.remove(0)
}

fn completed(end: &Value) -> bool {
    end["id"] == 7
        && end["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("complete"))
}

#[test]
fn the_shim_runs_multi_round_handlers() {
    let end = multi_round_answered_at([0, 0]);
    assert!(completed(&end), "{end}");
}

#[test]
fn each_round_of_a_multi_round_call_gets_its_own_wait() {
    // Two questions, each answered within the shim's wait of its own round, the second past
    // the first round's ticket's life: the call completes (a ticket that stays in-process
    // lives each round's wait, not the first ticket's deadline).
    let wait = mrtr_core::legacy::SHIM_WAIT_S;
    let end = multi_round_answered_at([wait * 2 / 3, wait * 2 / 3 + wait - 100]);
    assert!(completed(&end), "{end}");
}

#[test]
fn a_capability_gap_gets_the_legacy_eras_failure_not_32021() {
    // -32021 does not exist in 2025-11-25: a tool call fails as a tool result, the other
    // methods with -32603, as the TypeScript SDK's shim does.
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({}));
    let out = deliver(&mut conn, &mut s, deploy_call());
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[0]["result"]["isError"], true);
    let text = out[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("elicitation"), "{text}");
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "test_input_required_result_prompt"}}),
    );
    assert_eq!(out[0]["error"]["code"], -32603);
    assert_eq!(conn.waiting(), 0);
}

#[test]
fn a_person_may_take_longer_than_the_ticket_ttl_to_answer() {
    // The server's TTL is 120 s; the shim's own ticket lives as long as its wait.
    let (mut s, mut conn) = (lab(), Connection::new());
    assert_eq!(s.config.ttl_s, 120);
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let ask = deliver(&mut conn, &mut s, deploy_call()).remove(0);
    let out = deliver_at(
        &mut conn,
        &mut s,
        mrtr_core::legacy::SHIM_WAIT_S - 1,
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}}),
    );
    assert_eq!(
        out[0]["result"]["content"][0]["text"], "deployed to staging, release 2026.11.30-2",
        "{out:?}"
    );
}

#[test]
fn a_call_nobody_answers_ends_after_the_wait() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let ask = deliver(&mut conn, &mut s, deploy_call()).remove(0);
    assert!(conn.expire(EPOCH_MS + 599_000).outgoing.is_empty());
    let out = conn
        .expire(EPOCH_MS + mrtr_core::legacy::SHIM_WAIT_S * 1000)
        .outgoing;
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[0]["result"]["isError"], true);
    assert!(out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("600 s"));
    assert_eq!(conn.waiting(), 0);
    // A late answer to the ended call is ignored.
    let late = deliver_at(
        &mut conn,
        &mut s,
        700,
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}}),
    );
    assert!(late.is_empty());
}

#[test]
fn waiting_calls_are_bounded() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let max = mrtr_core::legacy::MAX_WAITING_CALLS;
    for i in 0..max {
        let mut c = deploy_call();
        c["id"] = json!(100 + i);
        assert_eq!(
            deliver(&mut conn, &mut s, c)[0]["method"],
            "elicitation/create"
        );
    }
    let mut c = deploy_call();
    c["id"] = json!(999);
    let out = deliver(&mut conn, &mut s, c);
    assert_eq!(out[0]["id"], 999);
    assert_eq!(out[0]["result"]["isError"], true);
    assert_eq!(conn.waiting(), max);
}

#[test]
fn a_cancelled_call_is_never_answered_and_frees_its_slot() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let max = mrtr_core::legacy::MAX_WAITING_CALLS;
    let mut sent = Vec::new();
    let mut asks = Vec::new();
    for i in 0..max {
        let mut c = deploy_call();
        c["id"] = json!(100 + i);
        let out = deliver(&mut conn, &mut s, c);
        asks.push(out[0]["id"].clone());
        sent.extend(out);
    }
    assert_eq!(conn.waiting(), max);
    // Cancel the sixth call: nothing answers it, and the shim withdraws its question.
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 105, "reason": "user gave up"}}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "notifications/cancelled");
    assert_eq!(out[0]["params"]["requestId"], asks[5]);
    assert!(out[0].get("id").is_none());
    sent.extend(out);
    assert_eq!(conn.waiting(), max - 1);
    // The slot is free: a 33rd call is asked, not refused.
    let mut c = deploy_call();
    c["id"] = json!(999);
    let out = deliver(&mut conn, &mut s, c);
    assert_eq!(out[0]["method"], "elicitation/create", "{out:?}");
    sent.extend(out);
    assert_eq!(conn.waiting(), max);
    // A late answer to the withdrawn question, a second cancel, and a cancel of an id
    // nobody knows change nothing.
    for m in [
        json!({"jsonrpc": "2.0", "id": asks[5], "result": {"action": "accept", "content": {"confirm": true}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 105}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nope"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
    ] {
        assert!(deliver(&mut conn, &mut s, m).is_empty());
    }
    assert_eq!(conn.waiting(), max);
    // The others still complete or end after the wait; the cancelled call never does.
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": asks[6], "result": {"action": "accept", "content": {"confirm": true}}}),
    );
    assert_eq!(out[0]["id"], 106);
    sent.extend(out);
    let out = conn
        .expire(EPOCH_MS + mrtr_core::legacy::SHIM_WAIT_S * 1000)
        .outgoing;
    assert_eq!(out.len(), max - 1);
    sent.extend(out);
    let answered_105 = sent
        .iter()
        .filter(|m| m["id"] == 105 && (m.get("result").is_some() || m.get("error").is_some()));
    assert_eq!(answered_105.count(), 0, "the cancelled call got an answer");
    assert_eq!(conn.waiting(), 0);
}

#[test]
fn a_modern_request_does_not_switch_an_initialized_connection() {
    let (mut s, mut conn) = (lab(), Connection::new());
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(all_caps())}}),
    );
    assert_eq!(out[0]["result"]["supportedVersions"], json!(["2026-07-28"]));
    // Legacy requests on the same connection are still served as legacy.
    let out = deliver(
        &mut conn,
        &mut s,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert!(out[0]["result"]["tools"].is_array(), "{out:?}");
    let ask = deliver(&mut conn, &mut s, deploy_call());
    assert_eq!(ask[0]["method"], "elicitation/create");
    assert_eq!(conn.era(), Some(Era::Legacy));
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
    // The versions served without a handshake, as server/discover lists them: a client
    // that wants 2025-11-25 opens with initialize instead.
    assert_eq!(out[0]["error"]["data"]["supported"], json!(["2026-07-28"]));
}

#[test]
fn a_null_id_is_an_invalid_request_in_both_eras() {
    let (mut s, mut conn) = (lab(), Connection::new());
    let null_id =
        |method: &str| json!({"jsonrpc": "2.0", "id": null, "method": method, "params": {}});
    let out = deliver(&mut conn, &mut s, null_id("server/discover"));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["error"]["code"], -32600);
    initialize(&mut conn, &mut s, json!({"elicitation": {}}));
    for m in ["tools/list", "tools/call", "ping"] {
        let out = deliver(&mut conn, &mut s, null_id(m));
        assert_eq!(out.len(), 1, "{m}: {out:?}");
        assert_eq!(out[0]["error"]["code"], -32600, "{m}");
        assert_eq!(out[0]["id"], Value::Null, "{m}");
    }
    assert_eq!(conn.waiting(), 0);
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
            &s,
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
