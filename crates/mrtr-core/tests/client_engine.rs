//! The client engine: new ids, byte-exact tickets, answers keyed like the questions.

mod common;

use common::*;
use mrtr_core::client::{CallError, MAX_ROUNDS};
use mrtr_core::wire::{ClientCapabilities, InputRequest};
use mrtr_core::{AgreeableHost, Client, Host, Principal, Step};
use serde_json::{json, Value};

fn client() -> Client {
    Client::new(ClientCapabilities::all(), "test-client", "1.0.0")
}

fn run(name: &str) -> (Vec<Value>, Result<Value, CallError>) {
    let mut s = lab();
    let mut c = client();
    let mut host = AgreeableHost::with(json!({"confirm": true, "name": "Alice", "ok": true}));
    let mut send = |m: &Value| {
        send_as(&mut s, Principal::user("bob"), 1, m)
            .response
            .ok_or_else(|| "none".to_owned())
    };
    c.run(
        "tools/call",
        json!({"name": name, "arguments": {"env": "staging"}}),
        &mut host,
        &mut send,
    )
}

#[test]
fn the_retry_has_a_new_id_the_answer_and_the_ticket_byte_for_byte() {
    let (log, result) = run("deploy");
    assert_eq!(
        result.unwrap()["content"][0]["text"],
        "deployed to staging, release 2026.11.30-2"
    );
    let (call, ir, retry) = (&log[0], &log[1], &log[2]);
    assert_ne!(call["id"], retry["id"]);
    assert_eq!(
        ir["result"]["requestState"],
        retry["params"]["requestState"]
    );
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
    );
    // Everything else is the same request: method, name, arguments, envelope.
    assert_eq!(call["method"], retry["method"]);
    for k in ["name", "arguments", "_meta"] {
        assert_eq!(call["params"][k], retry["params"][k], "{k}");
    }
    assert!(call["params"].get("requestState").is_none());
}

#[test]
fn every_fixture_completes_through_client_and_server() {
    for name in [
        "test_input_required_result_elicitation",
        "test_input_required_result_sampling",
        "test_input_required_result_list_roots",
        "test_input_required_result_request_state",
        "test_input_required_result_multiple_inputs",
        "test_input_required_result_multi_round",
        "test_input_required_result_tampered_state",
        "test_input_required_result_capabilities",
    ] {
        let (log, result) = run(name);
        let r = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r["resultType"], "complete", "{name}");
        let ids: Vec<&Value> = log.iter().step_by(2).map(|m| &m["id"]).collect();
        let mut dedup = ids.clone();
        dedup.dedup();
        assert_eq!(ids.len(), dedup.len(), "{name}: ids repeat");
    }
}

#[test]
fn no_state_means_no_state_in_the_retry() {
    let (log, _) = run("test_input_required_result_elicitation");
    assert!(log[1]["result"].get("requestState").is_none());
    assert!(log[2]["params"].get("requestState").is_none());
    assert!(log[2]["params"]["inputResponses"]["user_name"].is_object());
}

fn respond(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[test]
fn a_result_without_result_type_is_complete() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
    let step = c.on_response(
        &mut call,
        &respond(&msg["id"], json!({"content": []})),
        &mut AgreeableHost::default(),
    );
    assert!(matches!(step, Step::Complete(_)));
}

#[test]
fn an_unknown_result_type_is_an_error() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
    let step = c.on_response(
        &mut call,
        &respond(&msg["id"], json!({"resultType": "task"})),
        &mut AgreeableHost::default(),
    );
    assert!(matches!(step, Step::Failed(CallError::Protocol(_))));
}

#[test]
fn a_state_only_result_is_retried_at_once_with_the_state() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x", "arguments": {}}));
    let step = c.on_response(
        &mut call,
        &respond(
            &msg["id"],
            json!({"resultType": "input_required", "requestState": " odd bytes \u{00e9} "}),
        ),
        &mut AgreeableHost::default(),
    );
    let Step::Retry(retry) = step else {
        panic!("{step:?}")
    };
    assert_eq!(retry["params"]["requestState"], " odd bytes \u{00e9} ");
    assert!(retry["params"].get("inputResponses").is_none());
}

#[test]
fn input_required_with_nothing_to_answer_and_no_state_is_an_error_not_a_retry() {
    for result in [
        json!({"resultType": "input_required"}),
        json!({"resultType": "input_required", "inputRequests": {}}),
        json!({"resultType": "input_required", "inputRequests": null}),
        json!({"resultType": "input_required", "inputRequests": {}, "requestState": null}),
        json!({"resultType": "input_required", "requestState": null}),
    ] {
        let mut c = client();
        let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
        let step = c.on_response(
            &mut call,
            &respond(&msg["id"], result.clone()),
            &mut AgreeableHost::default(),
        );
        let Step::Failed(CallError::Protocol(why)) = &step else {
            panic!("{result}: {step:?}")
        };
        assert!(
            why.contains("no inputRequests to answer and no requestState"),
            "{result}: {why}"
        );
        assert_eq!(call.round, 1, "{result}: no retry was made");
    }
    // An empty inputRequests beside a state is a state-only round: retried.
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
    let step = c.on_response(
        &mut call,
        &respond(
            &msg["id"],
            json!({"resultType": "input_required", "inputRequests": {}, "requestState": "s"}),
        ),
        &mut AgreeableHost::default(),
    );
    assert!(matches!(step, Step::Retry(_)), "{step:?}");
}

#[test]
fn rounds_are_bounded() {
    let mut c = client();
    let (mut call, mut msg) = c.begin("tools/call", json!({"name": "x"}));
    let mut rounds = 1;
    loop {
        let step = c.on_response(
            &mut call,
            &respond(
                &msg["id"],
                json!({"resultType": "input_required", "requestState": "s"}),
            ),
            &mut AgreeableHost::default(),
        );
        match step {
            Step::Retry(m) => {
                msg = m;
                rounds += 1;
            }
            Step::Failed(CallError::TooManyRounds) => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(rounds, MAX_ROUNDS);
}

#[test]
fn a_ticket_is_never_reused_on_another_request() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "a"}));
    let _ = c.on_response(
        &mut call,
        &respond(
            &msg["id"],
            json!({"resultType": "input_required", "requestState": "ticket-for-a"}),
        ),
        &mut AgreeableHost::default(),
    );
    let (_, other) = c.begin(
        "tools/call",
        json!({"name": "b", "requestState": "smuggled"}),
    );
    assert!(other["params"].get("requestState").is_none());
    assert!(other["params"].get("inputResponses").is_none());
}

#[test]
fn errors_and_mismatched_ids_fail_the_call() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
    let err = json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state"}}});
    assert!(
        matches!(c.on_response(&mut call, &err, &mut AgreeableHost::default()), Step::Failed(CallError::Rpc(e)) if e.is_invalid_request_state())
    );
    let (mut call, _) = c.begin("tools/call", json!({"name": "x"}));
    assert!(matches!(
        c.on_response(
            &mut call,
            &respond(&json!(999), json!({})),
            &mut AgreeableHost::default()
        ),
        Step::Failed(CallError::Protocol(_))
    ));
}

struct NoSampling;
impl Host for NoSampling {
    fn elicit(&mut self, _: &str, _: &InputRequest) -> Value {
        json!({"action": "cancel"})
    }
    fn sample(&mut self, _: &str, _: &InputRequest) -> Option<Value> {
        None
    }
    fn roots(&mut self, _: &str) -> Value {
        json!({"roots": []})
    }
}

#[test]
fn a_declined_sampling_request_ends_the_call() {
    let mut s = lab();
    let mut c = client();
    let mut send = |m: &Value| send(&mut s, m).response.ok_or_else(|| "none".to_owned());
    let (_, r) = c.run(
        "tools/call",
        json!({"name": "test_input_required_result_sampling"}),
        &mut NoSampling,
        &mut send,
    );
    assert_eq!(
        r.unwrap_err(),
        CallError::Declined("capital_question".into())
    );
}

#[test]
fn a_malformed_input_request_is_a_protocol_error() {
    let mut c = client();
    let (mut call, msg) = c.begin("tools/call", json!({"name": "x"}));
    let bad = json!({"resultType": "input_required", "inputRequests": {"k": {"method": "launch/missiles"}}});
    assert!(matches!(
        c.on_response(
            &mut call,
            &respond(&msg["id"], bad),
            &mut AgreeableHost::default()
        ),
        Step::Failed(CallError::Protocol(_))
    ));
}

/// The client follows a task on a clock that only moves when it waits: the full catalogue's
/// server, bob calling, `caps` declared.
fn run_task(
    caps: ClientCapabilities,
    name: &str,
    args: Value,
) -> (Vec<Value>, Result<Value, CallError>, u64) {
    use mrtr_core::ticket::{Keyring, Seal};
    let s = mrtr_core::Server::new(
        mrtr_core::ServerConfig::default(),
        mrtr_core::Codec::new(
            Keyring::new(mrtr_core::Key::new("k1", SECRET).unwrap()),
            Seal::Signed,
        ),
        mrtr_core::fixtures::full_catalog(),
    );
    let mut c = Client::new(caps, "test-client", "1.0.0");
    let mut host = AgreeableHost::with(json!({"confirm": true, "name": "Alice"}));
    let now = std::cell::Cell::new(0u64);
    let mut send = |m: &Value| {
        let clock = mrtr_core::FixedClock(EPOCH_MS + now.get());
        let mut rng = mrtr_core::SeededEntropy::new(now.get() + 1);
        s.handle(
            m,
            &mut mrtr_core::CallContext {
                principal: &Principal::user("bob"),
                clock: &clock,
                entropy: &mut rng,
            },
        )
        .response
        .ok_or_else(|| "none".to_owned())
    };
    let mut wait = |ms: u64| now.set(now.get() + ms);
    let (log, r) = c.run_waiting(
        "tools/call",
        json!({"name": name, "arguments": args}),
        &mut host,
        &mut send,
        &mut wait,
    );
    (log, r, now.get())
}

#[test]
fn a_client_that_reads_tasks_polls_answers_once_and_ends_with_the_result() {
    let (log, result, waited) = run_task(
        ClientCapabilities::all(),
        "deploy_as_task",
        json!({"env": "prod"}),
    );
    assert_eq!(
        result.unwrap()["content"][0]["text"],
        "deployed to prod, release 2026.11.30-2"
    );
    let methods: Vec<&str> = log.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(methods[0], "tools/call");
    assert_eq!(
        methods.iter().filter(|m| **m == "tasks/update").count(),
        1,
        "answered once"
    );
    assert!(methods.iter().skip(1).all(|m| m.starts_with("tasks/")));
    // Polled at the server's interval, through the 20 s build and the 10 s roll-out.
    assert!((30_000..=32_000).contains(&waited), "{waited}");
    let update = log.iter().find(|m| m["method"] == "tasks/update").unwrap();
    assert_eq!(
        update["params"]["inputResponses"],
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
    );
    assert!(update["params"].get("requestState").is_none());
    // Every request has its own id.
    let ids: std::collections::BTreeSet<String> = log
        .iter()
        .filter(|m| m.get("method").is_some())
        .map(|m| m["id"].to_string())
        .collect();
    assert_eq!(ids.len(), methods.len());
}

#[test]
fn a_task_that_fails_or_needs_the_extension_ends_in_its_error() {
    let (_, r, _) = run_task(ClientCapabilities::all(), "protocol_error_job", json!({}));
    assert!(matches!(r, Err(CallError::Rpc(e)) if e.code == -32603));
    let no_tasks = ClientCapabilities {
        tasks: false,
        ..ClientCapabilities::all()
    };
    let (_, r, _) = run_task(no_tasks, "failing_job", json!({}));
    assert!(matches!(r, Err(CallError::Rpc(e)) if e.code == -32021));
}

#[test]
fn a_task_sent_to_a_client_that_did_not_declare_the_extension_is_not_read() {
    let mut c = Client::new(ClientCapabilities::default(), "t", "1");
    let (mut call, _) = c.begin("tools/call", json!({"name": "x"}));
    let task = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task", "taskId": "t", "status": "working"}});
    let step = c.on_response(&mut call, &task, &mut AgreeableHost::default());
    assert!(
        matches!(&step, Step::Failed(CallError::Protocol(why)) if why.contains("tasks extension")),
        "{step:?}"
    );
}

#[test]
fn a_cancelled_task_ends_the_call_and_a_poll_about_another_task_is_refused() {
    let mut c = client();
    let (mut call, _) = c.begin("tools/call", json!({"name": "x"}));
    let created = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task", "taskId": "t1", "status": "working", "pollIntervalMs": 5}});
    let Step::Task { after_ms, request } =
        c.on_response(&mut call, &created, &mut AgreeableHost::default())
    else {
        panic!("expected a poll");
    };
    assert_eq!(after_ms, 50, "a poll interval below 50 ms is raised to it");
    assert_eq!(request["method"], "tasks/get");
    let id = request["id"].clone();
    let cancelled = json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "taskId": "t1", "status": "cancelled"}});
    let mut other = call.clone();
    assert_eq!(
        c.on_response(&mut call, &cancelled, &mut AgreeableHost::default()),
        Step::Failed(CallError::Cancelled)
    );
    let wrong = json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "taskId": "t2", "status": "working"}});
    assert!(matches!(
        c.on_response(&mut other, &wrong, &mut AgreeableHost::default()),
        Step::Failed(CallError::Protocol(_))
    ));
}
