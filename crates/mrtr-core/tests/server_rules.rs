//! The server engine, rule by rule, and every conformance scenario's expectations.

mod common;

use common::*;
use mrtr_core::error::*;
use mrtr_core::ticket::Seal;
use mrtr_core::{Key, Keyring, Principal};
use serde_json::{json, Value};

#[test]
fn discover_is_a_cacheable_complete_result() {
    let mut s = lab();
    let r = send(&mut s, &req(1, "server/discover", json!({})));
    let res = result(&r);
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["supportedVersions"], json!(["2026-07-28"]));
    assert!(res["ttlMs"].is_number() && res["cacheScope"].is_string());
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mrtr-lab"
    );
}

#[test]
fn lists_are_complete_and_cacheable_never_input_required() {
    let mut s = lab();
    for (m, key) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
    ] {
        let r = send(&mut s, &req(1, m, json!({})));
        let res = result(&r);
        assert_eq!(res["resultType"], "complete", "{m}");
        assert!(
            res[key].is_array() && res["ttlMs"].is_number() && res["cacheScope"].is_string(),
            "{m}"
        );
    }
    let r = send(&mut s, &req(1, "tools/list", json!({})));
    let names: Vec<&str> = result(&r)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for n in [
        "deploy",
        "test_input_required_result_elicitation",
        "test_input_required_result_capabilities",
    ] {
        assert!(names.contains(&n), "{n}");
    }
}

#[test]
fn a_request_with_a_null_id_is_an_invalid_request_with_400() {
    let mut s = lab();
    let mut m = req(1, "tools/list", json!({}));
    m["id"] = Value::Null;
    let r = send(&mut s, &m);
    assert_eq!(r.http_status, 400);
    let e = r
        .response
        .expect("an answer, not silence as for a notification");
    assert_eq!(e["error"]["code"], -32600);
    assert_eq!(e["id"], Value::Null);
    assert!(e["error"]["message"].as_str().unwrap().contains("not null"));
    // Without an id at all it is a notification: no answer.
    m.as_object_mut().unwrap().remove("id");
    assert!(send(&mut s, &m).response.is_none());
}

#[test]
fn a_missing_envelope_is_invalid_params_with_400() {
    let mut s = lab();
    let r = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
    );
    assert_eq!(r.error().unwrap().code, INVALID_PARAMS);
    assert_eq!(r.http_status, 400);
    let r = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
    );
    assert_eq!(r.error().unwrap().code, INVALID_PARAMS);
}

#[test]
fn an_unsupported_version_names_the_supported_ones() {
    let mut s = lab();
    let mut m = meta(all_caps());
    m["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let r = send(&mut s, &req(4, "tools/list", json!({"_meta": m})));
    let e = r.error().unwrap();
    assert_eq!(e.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert_eq!(
        e.data.unwrap(),
        json!({"supported": ["2026-07-28"], "requested": "1900-01-01"})
    );
    assert_eq!(r.http_status, 400);
}

#[test]
fn initialize_ping_and_unknown_methods_are_404_method_not_found() {
    let mut s = lab();
    for m in ["initialize", "ping", "nope/nothing", "elicitation/create"] {
        let r = send(&mut s, &req(1, m, json!({})));
        assert_eq!(r.error().unwrap().code, METHOD_NOT_FOUND, "{m}");
        assert_eq!(r.http_status, 404, "{m}");
    }
}

#[test]
fn notifications_get_no_response_and_bad_json_gets_parse_error() {
    let mut s = lab();
    let r = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert!(r.response.is_none());
    let clock = mrtr_core::FixedClock(0);
    let mut rng = mrtr_core::SeededEntropy::new(1);
    let p = Principal::Anonymous;
    let r = s.handle_text(
        "{not json",
        &mut mrtr_core::CallContext {
            principal: &p,
            clock: &clock,
            entropy: &mut rng,
        },
    );
    assert_eq!(r.error().unwrap().code, PARSE_ERROR);
    assert_eq!(r.http_status, 400);
}

#[test]
fn basic_elicitation() {
    let mut s = lab();
    let r1 = send(
        &mut s,
        &tool(1, "test_input_required_result_elicitation", json!({})),
    );
    let res = result(&r1);
    assert_eq!(res["resultType"], "input_required");
    let ask = &res["inputRequests"]["user_name"];
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["message"], "What is your name?");
    assert_eq!(
        ask["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    let r2 = send(
        &mut s,
        &tool(
            2,
            "test_input_required_result_elicitation",
            json!({"inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}}}),
        ),
    );
    assert_eq!(result(&r2)["resultType"], "complete");
    assert_eq!(text(&r2), "Hello, Alice!");
}

#[test]
fn basic_sampling_and_roots() {
    let mut s = lab();
    let r = send(
        &mut s,
        &tool(1, "test_input_required_result_sampling", json!({})),
    );
    let ask = &result(&r)["inputRequests"]["capital_question"];
    assert_eq!(ask["method"], "sampling/createMessage");
    assert_eq!(ask["params"]["maxTokens"], 100);
    let r = send(
        &mut s,
        &tool(
            2,
            "test_input_required_result_sampling",
            json!({"inputResponses": {"capital_question": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "test-model", "stopReason": "endTurn"}}}),
        ),
    );
    assert_eq!(text(&r), "The model answered: Paris");

    let r = send(
        &mut s,
        &tool(3, "test_input_required_result_list_roots", json!({})),
    );
    assert_eq!(
        result(&r)["inputRequests"]["client_roots"],
        json!({"method": "roots/list", "params": {}})
    );
    let r = send(
        &mut s,
        &tool(
            4,
            "test_input_required_result_list_roots",
            json!({"inputResponses": {"client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}}}),
        ),
    );
    assert_eq!(text(&r), "Roots: file:///test/root");
}

fn ask_and_answer(
    s: &mut mrtr_core::Server,
    name: &str,
    answers: Value,
) -> (Value, mrtr_core::Reply) {
    let r1 = send(s, &tool(1, name, json!({})));
    let first = result(&r1).clone();
    let state = first["requestState"].clone();
    assert!(state.is_string(), "{name} sends a requestState");
    let r2 = send(
        s,
        &tool(
            2,
            name,
            json!({"inputResponses": answers, "requestState": state}),
        ),
    );
    (first, r2)
}

#[test]
fn request_state_and_multiple_inputs() {
    let mut s = lab();
    let (first, r2) = ask_and_answer(
        &mut s,
        "test_input_required_result_request_state",
        json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
    );
    assert!(first["inputRequests"]["confirm"].is_object());
    assert!(text(&r2).contains("state-ok"));

    let (first, r2) = ask_and_answer(
        &mut s,
        "test_input_required_result_multiple_inputs",
        json!({
            "user_name": {"action": "accept", "content": {"name": "Alice"}},
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m"},
            "client_roots": {"roots": [{"uri": "file:///r"}]},
        }),
    );
    let methods: Vec<&str> = first["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );
    assert_eq!(result(&r2)["resultType"], "complete");
}

#[test]
fn multi_round_sends_a_different_state_each_round() {
    let mut s = lab();
    let name = "test_input_required_result_multi_round";
    let r1 = send(&mut s, &tool(1, name, json!({})));
    let s1 = result(&r1)["requestState"].clone();
    assert!(result(&r1)["inputRequests"]["step1"].is_object());
    let r2 = send(
        &mut s,
        &tool(
            2,
            name,
            json!({"inputResponses": {"step1": {"action": "accept", "content": {"ok": true}}}, "requestState": s1}),
        ),
    );
    assert_eq!(result(&r2)["resultType"], "input_required");
    let s2 = result(&r2)["requestState"].clone();
    assert!(result(&r2)["inputRequests"]["step2"].is_object());
    assert_ne!(s1, s2);
    let r3 = send(
        &mut s,
        &tool(
            3,
            name,
            json!({"inputResponses": {"step2": {"action": "accept", "content": {"ok": true}}}, "requestState": s2}),
        ),
    );
    assert_eq!(result(&r3)["resultType"], "complete");
}

#[test]
fn a_missing_input_response_is_asked_again() {
    let mut s = lab();
    let r = send(
        &mut s,
        &tool(
            1,
            "test_input_required_result_elicitation",
            json!({"inputResponses": {"wrong_key": {"action": "accept", "content": {"name": "x"}}}}),
        ),
    );
    assert_eq!(result(&r)["resultType"], "input_required");
    assert!(result(&r)["inputRequests"]["user_name"].is_object());
}

#[test]
fn prompts_get_may_require_input() {
    let mut s = lab();
    let p = "test_input_required_result_prompt";
    let r1 = send(&mut s, &req(1, "prompts/get", json!({"name": p})));
    assert_eq!(result(&r1)["resultType"], "input_required");
    assert!(result(&r1)["inputRequests"]["user_context"].is_object());
    let st = result(&r1)["requestState"].clone();
    let r2 = send(
        &mut s,
        &req(
            2,
            "prompts/get",
            json!({"name": p, "requestState": st, "inputResponses": {"user_context": {"action": "accept", "content": {"context": "ops"}}}}),
        ),
    );
    assert_eq!(result(&r2)["resultType"], "complete");
    assert!(result(&r2)["messages"].is_array());
}

#[test]
fn resources_read_may_require_input() {
    let mut s = lab();
    let uri = "mrtr://lab/deploy-log";
    let r1 = send(&mut s, &req(1, "resources/read", json!({"uri": uri})));
    let st = result(&r1)["requestState"].clone();
    let r2 = send(
        &mut s,
        &req(
            2,
            "resources/read",
            json!({"uri": uri, "requestState": st, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
        ),
    );
    assert_eq!(result(&r2)["contents"][0]["uri"], uri);
    assert!(result(&r2)["ttlMs"].is_number());
}

#[test]
fn a_tampered_state_is_refused_with_the_uniform_error() {
    let mut s = lab();
    let name = "test_input_required_result_tampered_state";
    let r1 = send(&mut s, &tool(1, name, json!({})));
    let st = format!("{}-TAMPERED", result(&r1)["requestState"].as_str().unwrap());
    let key = result(&r1)["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let r2 = send(
        &mut s,
        &tool(
            2,
            name,
            json!({"requestState": st, "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}}),
        ),
    );
    let e = r2.error().unwrap();
    assert_eq!(
        e.to_value(),
        json!({"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}})
    );
    // The detail stays in the trace (the server's log), never on the wire.
    let detail = r2
        .trace
        .iter()
        .find_map(|e| match e {
            mrtr_core::TraceEvent::Refused { detail, .. } => Some(detail.clone()),
            _ => None,
        })
        .unwrap();
    assert!(detail.starts_with("signature check failed"), "{detail}");
    assert!(!r2.response.unwrap().to_string().contains("signature"));
}

#[test]
fn a_non_string_state_is_refused() {
    let mut s = lab();
    for bad in [json!(42), json!({"a": 1}), json!(["v1."]), json!(true)] {
        let r = send(
            &mut s,
            &tool(
                1,
                "deploy",
                json!({"arguments": {"env": "staging"}, "requestState": bad}),
            ),
        );
        assert!(r.error().unwrap().is_invalid_request_state());
    }
}

#[test]
fn the_server_adapts_to_declared_capabilities() {
    let mut s = lab();
    let r = send(
        &mut s,
        &req(
            1,
            "tools/call",
            json!({"name": "test_input_required_result_capabilities", "_meta": meta(json!({"sampling": {}}))}),
        ),
    );
    let res = result(&r);
    assert_eq!(res["resultType"], "input_required");
    for v in res["inputRequests"].as_object().unwrap().values() {
        assert_ne!(v["method"], "elicitation/create");
    }
}

#[test]
fn an_undeclared_kind_is_never_sent_32021_instead() {
    let mut s = lab();
    let r = send(
        &mut s,
        &req(
            1,
            "tools/call",
            json!({"name": "deploy", "arguments": {"env": "staging"}, "_meta": meta(json!({"sampling": {}}))}),
        ),
    );
    let e = r.error().unwrap();
    assert_eq!(e.code, MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert_eq!(
        e.data.unwrap(),
        json!({"requiredCapabilities": {"elicitation": {"form": {}}}})
    );
    assert_eq!(r.http_status, 400);
    // A url-only elicitation client cannot get a form either.
    let r = send(
        &mut s,
        &req(
            2,
            "tools/call",
            json!({"name": "deploy", "arguments": {"env": "staging"}, "_meta": meta(json!({"elicitation": {"url": {}}}))}),
        ),
    );
    assert_eq!(r.error().unwrap().code, MISSING_REQUIRED_CLIENT_CAPABILITY);
}

#[test]
fn extra_unknown_responses_are_ignored() {
    let mut s = lab();
    let r = send(
        &mut s,
        &tool(
            1,
            "test_input_required_result_elicitation",
            json!({"inputResponses": {
                "user_name": {"action": "accept", "content": {"name": "Alice"}},
                "unknown_a": {"action": "accept", "content": {"x": 1}},
                "unknown_b": {"roots": []},
            }}),
        ),
    );
    assert_eq!(result(&r)["resultType"], "complete");
}

#[test]
fn invalid_input_responses_never_complete() {
    let mut s = lab();
    for bad in [
        json!({"user_name": 12345}),
        Value::Null,
        json!({"user_name": {"action": "accept", "content": {"name": {"nested": 1}}}}),
    ] {
        let r = send(
            &mut s,
            &tool(
                1,
                "test_input_required_result_elicitation",
                json!({"inputResponses": bad}),
            ),
        );
        if let Some(res) = r.result() {
            assert_eq!(res["resultType"], "input_required", "{bad}");
        }
    }
    let r = send(
        &mut s,
        &tool(
            1,
            "test_input_required_result_elicitation",
            json!({"inputResponses": "nope"}),
        ),
    );
    assert_eq!(r.error().unwrap().code, INVALID_PARAMS);
}

#[test]
fn unknown_tools_and_bad_arguments_are_invalid_params() {
    let mut s = lab();
    assert_eq!(
        send(&mut s, &tool(1, "nope", json!({})))
            .error()
            .unwrap()
            .code,
        INVALID_PARAMS
    );
    assert_eq!(
        send(&mut s, &tool(1, "deploy", json!({"arguments": 3})))
            .error()
            .unwrap()
            .code,
        INVALID_PARAMS
    );
    assert_eq!(
        send(&mut s, &tool(1, "deploy", json!({"arguments": {}})))
            .error()
            .unwrap()
            .code,
        INVALID_PARAMS
    );
    assert_eq!(
        send(&mut s, &req(1, "tools/call", json!({})))
            .error()
            .unwrap()
            .code,
        INVALID_PARAMS
    );
}

fn deploy_ticket(s: &mut mrtr_core::Server, who: &str) -> String {
    let r = send_as(
        s,
        Principal::user(who),
        0,
        &tool(1, "deploy", json!({"arguments": {"env": "staging"}})),
    );
    result(&r)["requestState"].as_str().unwrap().to_owned()
}

fn deploy_retry(ticket: &str) -> Value {
    tool(
        2,
        "deploy",
        json!({"arguments": {"env": "staging"}, "requestState": ticket, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    )
}

#[test]
fn replicas_sharing_a_key_finish_each_others_work() {
    let mut a = lab();
    let mut b = lab();
    let t = deploy_ticket(&mut a, "bob");
    let r = send_as(&mut b, Principal::user("bob"), 8, &deploy_retry(&t));
    assert_eq!(text(&r), "deployed to staging, release 2026.11.30-2");
}

#[test]
fn a_replica_with_another_key_refuses_at_the_signature() {
    let mut a = lab();
    let mut b = mrtr_core::Server::lab(Key::new("other", &[3u8; 32]).unwrap());
    let t = deploy_ticket(&mut a, "bob");
    let r = send_as(&mut b, Principal::user("bob"), 8, &deploy_retry(&t));
    assert!(r.error().unwrap().is_invalid_request_state());
    assert_eq!(symbols(r.verdict().unwrap()), "✗––––");
}

#[test]
fn sealed_tickets_work_the_same_and_hide_the_state() {
    let mut s = lab();
    s.codec.seal = Seal::Sealed;
    let t = deploy_ticket(&mut s, "bob");
    assert!(t.starts_with("v1e."));
    assert!(mrtr_core::ticket::payload_text(&t).is_err());
    let r = send_as(&mut s, Principal::user("bob"), 8, &deploy_retry(&t));
    assert_eq!(text(&r), "deployed to staging, release 2026.11.30-2");
    assert_eq!(symbols(r.verdict().unwrap()), "✓✓✓✓✓");
    let r = send_as(&mut s, Principal::user("alice"), 9, &deploy_retry(&t));
    assert_eq!(symbols(r.verdict().unwrap()), "✓✗–––");
}

#[test]
fn rotation_keeps_outstanding_tickets_valid() {
    let mut s = lab();
    let t = deploy_ticket(&mut s, "bob");
    s.codec.keyring.rotate(Key::new("k2", &[5u8; 32]).unwrap());
    let r = send_as(&mut s, Principal::user("bob"), 8, &deploy_retry(&t));
    assert_eq!(text(&r), "deployed to staging, release 2026.11.30-2");
    let t2 = deploy_ticket(&mut s, "bob");
    assert_eq!(s.codec.open(&t2).unwrap().kid, "k2");
    let _ = Keyring::new(Key::new("k1", SECRET).unwrap());
}

#[test]
fn expiry_is_exclusive_at_exp() {
    let mut s = lab();
    let t = deploy_ticket(&mut s, "bob");
    assert_eq!(
        text(&send_as(
            &mut s,
            Principal::user("bob"),
            119,
            &deploy_retry(&t)
        )),
        "deployed to staging, release 2026.11.30-2"
    );
    let r = send_as(&mut s, Principal::user("bob"), 120, &deploy_retry(&t));
    assert_eq!(symbols(r.verdict().unwrap()), "✓✓✗––");
}

#[test]
fn anonymous_is_a_principal_of_its_own() {
    let mut s = lab();
    let r = send(
        &mut s,
        &tool(1, "deploy", json!({"arguments": {"env": "staging"}})),
    );
    let t = result(&r)["requestState"].as_str().unwrap().to_owned();
    let r = send_as(&mut s, Principal::user("anonymous"), 1, &deploy_retry(&t));
    assert_eq!(symbols(r.verdict().unwrap()), "✓✗–––");
    let r = send_as(&mut s, Principal::Anonymous, 1, &deploy_retry(&t));
    assert_eq!(text(&r), "deployed to staging, release 2026.11.30-2");
}

#[test]
fn a_ticket_for_one_tool_is_refused_on_another() {
    let mut s = lab();
    let r1 = send(
        &mut s,
        &tool(1, "test_input_required_result_request_state", json!({})),
    );
    let st = result(&r1)["requestState"].clone();
    let r2 = send(
        &mut s,
        &tool(
            2,
            "test_input_required_result_tampered_state",
            json!({"requestState": st, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}}),
        ),
    );
    assert_eq!(symbols(r2.verdict().unwrap()), "✓✓✓✗–");
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let run = || {
        let mut s = lab();
        let r = send_as(
            &mut s,
            Principal::user("bob"),
            0,
            &tool(1, "deploy", json!({"arguments": {"env": "staging"}})),
        );
        serde_json::to_string(&r.response).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_large_answer_in_a_multi_round_flow_still_fits_the_next_ticket() {
    let mut s = lab();
    let name = "test_input_required_result_multi_round";
    let r1 = send(&mut s, &tool(1, name, json!({})));
    let t1 = result(&r1)["requestState"].clone();
    let big = "x".repeat(5000);
    let r2 = send(
        &mut s,
        &tool(
            2,
            name,
            json!({"requestState": t1, "inputResponses": {"step1": {"action": "accept", "content": {"ok": true, "note": big}}}}),
        ),
    );
    let t2 = result(&r2)["requestState"].as_str().unwrap().to_owned();
    assert!(t2.len() <= mrtr_core::ticket::MAX_TICKET_LEN);
    let r3 = send(
        &mut s,
        &tool(
            3,
            name,
            json!({"requestState": t2, "inputResponses": {"step2": {"action": "accept", "content": {"ok": true}}}}),
        ),
    );
    assert_eq!(result(&r3)["resultType"], "complete");
}

#[test]
fn the_server_never_mints_a_ticket_it_would_refuse() {
    use mrtr_core::catalog::{Catalog, Invocation, Outcome, Tool};
    use mrtr_core::wire::InputRequest;
    fn hoard(inv: &Invocation<'_>) -> Outcome {
        let size = inv.arguments["size"].as_u64().unwrap_or(0) as usize;
        Outcome::ask(
            "ok",
            InputRequest::elicit("ok?", json!({"type": "object", "properties": {}})),
            Some(json!({"blob": "y".repeat(size)})),
        )
    }
    let mut s = mrtr_core::Server::new(
        Default::default(),
        mrtr_core::Codec::new(Keyring::new(Key::new("k1", SECRET).unwrap()), Seal::Signed),
        Catalog {
            tools: vec![Tool {
                name: "hoard",
                description: "keeps a lot",
                input_schema: json!({"type": "object"}),
                handler: hoard,
                work: None,
            }],
            ..Default::default()
        },
    );
    let small = send(
        &mut s,
        &tool(1, "hoard", json!({"arguments": {"size": 100}})),
    );
    assert!(result(&small)["requestState"].is_string());
    let big = send(
        &mut s,
        &tool(2, "hoard", json!({"arguments": {"size": 4000}})),
    );
    let e = big.error().unwrap();
    assert_eq!(e.code, INTERNAL_ERROR);
    assert!(e.message.contains("does not fit in a ticket"), "{e}");
}

#[test]
fn an_expiry_refusal_reads_without_underflow_whatever_its_numbers() {
    use mrtr_core::checks::Refusal;
    let r = Refusal::Expired { exp: 10, now: 15 };
    assert!(r.to_string().contains("(5 s late)"), "{r}");
    // Built by hand with now before exp (or at the ends of u64): still words, never a panic.
    for (exp, now) in [(15, 10), (u64::MAX, 0), (1 << 63, 1)] {
        let r = Refusal::Expired { exp, now };
        assert!(r.to_string().contains("(0 s late)"), "{r}");
    }
}
