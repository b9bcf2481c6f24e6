//! The tasks extension, rule by rule: the server engine with the conformance fixtures and the
//! lab's deploy as a task, on a fixed clock.

mod common;

use std::sync::Arc;

use common::*;
use mrtr_core::tasks::{MemoryTaskStore, TaskEvent, TaskStatus, EXTENSION, NOT_FOUND};
use mrtr_core::ticket::{Keyring, Seal};
use mrtr_core::{Codec, Key, Principal, Reply, Server, ServerConfig, TraceEvent};
use serde_json::{json, Value};

fn server() -> Server {
    Server::new(
        ServerConfig::default(),
        Codec::new(Keyring::new(Key::new("k1", SECRET).unwrap()), Seal::Signed),
        mrtr_core::fixtures::full_catalog(),
    )
}

/// Capabilities with the extension declared.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "sampling": {}, "extensions": {EXTENSION: {}}})
}

fn call(id: i64, tool_name: &str, args: Value, caps: Value) -> Value {
    tool(
        id,
        tool_name,
        json!({"arguments": args, "_meta": meta(caps)}),
    )
}

fn task_req(id: i64, method: &str, task: &str, extra: Value, caps: Value) -> Value {
    let mut params = json!({"taskId": task, "_meta": meta(caps)});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    req(id, method, params)
}

fn bob(s: &mut Server, at_ms: u64, msg: &Value) -> Reply {
    send_ms(s, Principal::user("bob"), at_ms, msg)
}

fn send_ms(s: &mut Server, who: Principal, at_ms: u64, msg: &Value) -> Reply {
    let clock = mrtr_core::FixedClock(EPOCH_MS + at_ms);
    // Fresh randomness for every request, as a real server has (task ids differ).
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(7);
    let seed = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut rng = mrtr_core::SeededEntropy::new(seed);
    s.handle(
        msg,
        &mut mrtr_core::CallContext {
            principal: &who,
            clock: &clock,
            entropy: &mut rng,
        },
    )
}

fn task_id(r: &Reply) -> String {
    let res = result(r);
    assert_eq!(res["resultType"], "task", "{res}");
    res["taskId"].as_str().unwrap().to_owned()
}

fn get(s: &mut Server, at_ms: u64, id: &str) -> Value {
    result(&bob(
        s,
        at_ms,
        &task_req(50, "tasks/get", id, json!({}), with_tasks()),
    ))
    .clone()
}

fn error_code(r: &Reply) -> i64 {
    r.error()
        .unwrap_or_else(|| panic!("expected an error, got {:?}", r.response))
        .code
}

#[test]
fn discovery_offers_the_extension_and_not_the_old_tasks_slot() {
    let mut s = server();
    let d = result(&send(&mut s, &req(1, "server/discover", json!({})))).clone();
    assert_eq!(d["capabilities"]["extensions"][EXTENSION], json!({}));
    assert!(d["capabilities"].get("tasks").is_none());
}

#[test]
fn without_the_extension_task_methods_are_refused_before_any_lookup() {
    let mut s = server();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let r = bob(
            &mut s,
            0,
            &task_req(
                1,
                method,
                "gate-test",
                json!({"inputResponses": {}}),
                json!({}),
            ),
        );
        assert_eq!(error_code(&r), -32021, "{method}");
        assert_eq!(r.http_status, 400);
        let data = r.error().unwrap().data.unwrap();
        assert_eq!(
            data["requiredCapabilities"]["extensions"][EXTENSION],
            json!({})
        );
    }
    // A tool that runs only as a task: -32021 too, not a task the client could not read.
    let r = bob(&mut s, 0, &call(2, "failing_job", json!({}), json!({})));
    assert_eq!(error_code(&r), -32021);
    assert!(
        r.error().unwrap().data.unwrap()["requiredCapabilities"]["extensions"]
            .get(EXTENSION)
            .is_some()
    );
    assert_eq!(s.task_count(), 0, "no task was started");
}

#[test]
fn a_task_optional_tool_runs_at_once_without_the_extension_and_as_a_task_with_it() {
    let mut s = server();
    let r = bob(
        &mut s,
        0,
        &call(
            1,
            "slow_compute",
            json!({"seconds": 0, "label": "x"}),
            json!({}),
        ),
    );
    assert_eq!(result(&r)["resultType"], "complete");
    assert!(result(&r)["content"][0]["text"].is_string());
    // Declared in this one request's _meta only: a task.
    let r = bob(
        &mut s,
        0,
        &call(2, "slow_compute", json!({"seconds": 1}), with_tasks()),
    );
    task_id(&r);
    // A synchronous tool stays synchronous, whatever the client declares or hints.
    let mut greet = call(3, "greet", json!({"name": "World"}), with_tasks());
    greet["params"]["task"] = json!({"ttl": 60000, "pollInterval": 100});
    let r = bob(&mut s, 0, &greet);
    assert_eq!(result(&r)["resultType"], "complete");
    assert_eq!(result(&r)["content"][0]["text"], "Hello, World!");
}

#[test]
fn a_created_task_is_flat_readable_at_once_and_completes_after_its_work() {
    let mut s = server();
    let r = bob(
        &mut s,
        0,
        &call(
            1,
            "slow_compute",
            json!({"seconds": 2, "label": "l"}),
            with_tasks(),
        ),
    );
    let created = result(&r).clone();
    let id = task_id(&r);
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "task",
        "ttl",
        "pollInterval",
    ] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    assert_eq!(created["status"], "working");
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    assert!(created["pollIntervalMs"].as_u64().unwrap() > 0);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    // Read at once: the create was stored before the call answered.
    let now = get(&mut s, 0, &id);
    assert_eq!(
        (now["taskId"].as_str(), now["status"].as_str()),
        (Some(id.as_str()), Some("working"))
    );
    assert_eq!(now["resultType"], "complete");
    assert!(now.get("requestState").is_none());
    // After its two seconds: completed, with the call's result inlined.
    let done = get(&mut s, 2_000, &id);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "slow_compute l: done after 2 s"
    );
    assert!(done["result"]
        .pointer("/_meta/io.modelcontextprotocol~1related-task")
        .is_none());
    assert_eq!(done["lastUpdatedAt"], "2027-01-15T08:00:02.000Z");
    // Kept until its time to live ends, then gone.
    let ttl = done["ttlMs"].as_u64().unwrap();
    assert_eq!(get(&mut s, ttl - 1, &id)["status"], "completed");
    let gone = bob(
        &mut s,
        ttl,
        &task_req(9, "tasks/get", &id, json!({}), with_tasks()),
    );
    assert_eq!(gone.error().unwrap().message, NOT_FOUND);
}

#[test]
fn a_tool_error_completes_and_a_protocol_error_fails() {
    let mut s = server();
    let a = task_id(&bob(
        &mut s,
        0,
        &call(1, "failing_job", json!({}), with_tasks()),
    ));
    let b = task_id(&bob(
        &mut s,
        0,
        &call(2, "protocol_error_job", json!({}), with_tasks()),
    ));
    let a = get(&mut s, 1_000, &a);
    assert_eq!(a["status"], "completed");
    assert_eq!(a["result"]["isError"], true);
    let b = get(&mut s, 1_000, &b);
    assert_eq!(b["status"], "failed");
    assert!(b["error"]["code"].is_i64() && b["error"]["message"].is_string());
    assert!(b.get("result").is_none());
}

#[test]
fn cancel_acknowledges_empty_ends_a_running_task_and_leaves_a_finished_one_alone() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "slow_compute", json!({"seconds": 60}), with_tasks()),
    ));
    let ack = bob(
        &mut s,
        100,
        &task_req(2, "tasks/cancel", &id, json!({}), with_tasks()),
    );
    assert_eq!(result(&ack), &json!({"resultType": "complete"}));
    assert_eq!(get(&mut s, 200, &id)["status"], "cancelled");
    // A finished task: the same acknowledgement, and it stays as it ended.
    let done = task_id(&bob(
        &mut s,
        0,
        &call(3, "slow_compute", json!({"seconds": 1}), with_tasks()),
    ));
    assert_eq!(get(&mut s, 1_000, &done)["status"], "completed");
    let ack = bob(
        &mut s,
        1_100,
        &task_req(4, "tasks/cancel", &done, json!({}), with_tasks()),
    );
    assert_eq!(result(&ack), &json!({"resultType": "complete"}));
    assert_eq!(get(&mut s, 1_200, &done)["status"], "completed");
}

#[test]
fn a_question_inside_a_task_is_read_with_get_and_answered_with_update() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(
            1,
            "confirm_delete",
            json!({"filename": "a.txt"}),
            with_tasks(),
        ),
    ));
    let waiting = get(&mut s, 10, &id);
    assert_eq!(waiting["status"], "input_required");
    let q = &waiting["inputRequests"]["confirm"];
    assert_eq!(q["method"], "elicitation/create");
    assert_eq!(
        q["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    // Polling again before answering gives the same question, byte for byte.
    assert_eq!(
        get(&mut s, 20, &id)["inputRequests"],
        waiting["inputRequests"]
    );
    // An answer under a key never asked: acknowledged and ignored, unread.
    let odd = bob(
        &mut s,
        30,
        &task_req(
            2,
            "tasks/update",
            &id,
            json!({"inputResponses": {"unknown-key": {"ignored": true}}}),
            with_tasks(),
        ),
    );
    assert_eq!(result(&odd), &json!({"resultType": "complete"}));
    assert!(odd.trace.contains(&TraceEvent::Task(TaskEvent::Ignored {
        id: id.clone(),
        keys: vec!["unknown-key".into()]
    })));
    assert_eq!(get(&mut s, 40, &id)["status"], "input_required");
    let yes =
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let ack = bob(
        &mut s,
        50,
        &task_req(3, "tasks/update", &id, yes.clone(), with_tasks()),
    );
    assert_eq!(result(&ack), &json!({"resultType": "complete"}));
    let done = get(&mut s, 60, &id);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt.");
    // The same answer again: ignored; nothing happens twice.
    let replay = bob(
        &mut s,
        70,
        &task_req(4, "tasks/update", &id, yes, with_tasks()),
    );
    assert_eq!(result(&replay), &json!({"resultType": "complete"}));
    assert!(replay
        .trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Task(TaskEvent::Ignored { .. }))));
    assert!(!replay
        .trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Task(TaskEvent::Moved { .. }))));
}

#[test]
fn an_answer_is_part_of_the_task_before_the_acknowledgement() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "multi_input", json!({}), with_tasks()),
    ));
    let both = get(&mut s, 0, &id);
    let keys: Vec<String> = both["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["name", "confirm"]);
    let answer = |n: &str| json!({"action": "accept", "content": {"name": n, "confirm": true}});
    bob(
        &mut s,
        10,
        &task_req(
            2,
            "tasks/update",
            &id,
            json!({"inputResponses": {"name": answer("partial-1")}}),
            with_tasks(),
        ),
    );
    let after = get(&mut s, 10, &id);
    assert_eq!(after["status"], "input_required");
    let open: Vec<&String> = after["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(open, ["confirm"]);
    bob(
        &mut s,
        20,
        &task_req(
            3,
            "tasks/update",
            &id,
            json!({"inputResponses": {"confirm": answer("partial-2")}}),
            with_tasks(),
        ),
    );
    let done = get(&mut s, 20, &id);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Hello, partial-1; confirmed: true."
    );
}

#[test]
fn an_answer_that_cannot_be_read_is_asked_again_under_a_new_key() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "confirm_delete", json!({"filename": "b"}), with_tasks()),
    ));
    bob(
        &mut s,
        10,
        &task_req(
            2,
            "tasks/update",
            &id,
            json!({"inputResponses": {"confirm": {"roots": "not a list"}}}),
            with_tasks(),
        ),
    );
    let again = get(&mut s, 20, &id);
    assert_eq!(again["status"], "input_required");
    let keys: Vec<&String> = again["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["confirm.2"],
        "a key once answered is never asked again"
    );
}

#[test]
fn mrtr_rounds_come_first_and_the_retry_starts_a_task_without_a_ticket() {
    let mut s = server();
    let r1 = bob(
        &mut s,
        0,
        &call(1, "test_tool_with_task", json!({}), with_tasks()),
    );
    let first = result(&r1).clone();
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("taskId").is_none());
    let ticket = first["requestState"].as_str().unwrap().to_owned();
    let key = first["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let mut retry = call(2, "test_tool_with_task", json!({}), with_tasks());
    retry["params"]["inputResponses"] =
        json!({key: {"action": "accept", "content": {"name": "Alice"}}});
    retry["params"]["requestState"] = json!(ticket);
    let r2 = bob(&mut s, 1_000, &retry);
    let created = result(&r2).clone();
    let id = task_id(&r2);
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none());
    let done = get(&mut s, 2_000, &id);
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    // Without the extension, even the first round is refused: the task is what it is for.
    let r = bob(
        &mut s,
        0,
        &call(
            3,
            "test_tool_with_task",
            json!({}),
            json!({"elicitation": {}}),
        ),
    );
    assert_eq!(error_code(&r), -32021);
}

#[test]
fn single_use_starts_one_task_per_flow_and_without_it_a_replay_starts_another() {
    for single_use in [true, false] {
        let mut s = server();
        s.config.policy.single_use = single_use;
        let r1 = bob(
            &mut s,
            0,
            &call(1, "test_tool_with_task", json!({}), with_tasks()),
        );
        let ticket = result(&r1)["requestState"].as_str().unwrap().to_owned();
        let mut retry = call(2, "test_tool_with_task", json!({}), with_tasks());
        retry["params"]["inputResponses"] =
            json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
        retry["params"]["requestState"] = json!(ticket);
        task_id(&bob(&mut s, 1_000, &retry));
        let replay = bob(&mut s, 1_500, &retry);
        if single_use {
            assert!(replay.error().unwrap().is_invalid_request_state());
            assert_eq!(s.task_count(), 1);
        } else {
            task_id(&replay);
            assert_eq!(
                s.task_count(),
                2,
                "the hole single use closes: a second task"
            );
        }
    }
}

#[test]
fn another_callers_task_is_not_found_exactly_like_an_unknown_one() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "confirm_delete", json!({"filename": "c"}), with_tasks()),
    ));
    let eve = Principal::user("eve");
    let yes =
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    for (method, extra) in [
        ("tasks/get", json!({})),
        ("tasks/update", yes.clone()),
        ("tasks/cancel", json!({})),
    ] {
        let theirs = send_ms(
            &mut s,
            eve.clone(),
            10,
            &task_req(2, method, &id, extra.clone(), with_tasks()),
        );
        let unknown = send_ms(
            &mut s,
            eve.clone(),
            10,
            &task_req(2, method, "no-such-task", extra, with_tasks()),
        );
        assert_eq!(theirs.response, unknown.response, "{method}");
        assert_eq!(theirs.error().unwrap().code, -32602);
        assert_eq!(theirs.error().unwrap().message, NOT_FOUND);
    }
    // Nothing the thief sent changed bob's task.
    assert_eq!(get(&mut s, 20, &id)["status"], "input_required");
}

#[test]
fn a_task_id_already_taken_is_never_overwritten() {
    let store = MemoryTaskStore::default();
    let mut s = server().with_task_store(Box::new(Arc::new(store)));
    let first = task_id(&bob(
        &mut s,
        0,
        &call(1, "slow_compute", json!({"seconds": 9}), with_tasks()),
    ));
    // The same randomness again would give the same id: the store refuses to replace it,
    // and the server draws another.
    let clock = mrtr_core::FixedClock(EPOCH_MS);
    let bob_p = Principal::user("bob");
    let mut same = mrtr_core::SeededEntropy::new(1);
    let mut again = mrtr_core::SeededEntropy::new(1);
    let ctx = |rng| mrtr_core::CallContext {
        principal: &bob_p,
        clock: &clock,
        entropy: rng,
    };
    let x = task_id(&s.handle(
        &call(2, "slow_compute", json!({"seconds": 9}), with_tasks()),
        &mut ctx(&mut same),
    ));
    let y = task_id(&s.handle(
        &call(3, "slow_compute", json!({"seconds": 9}), with_tasks()),
        &mut ctx(&mut again),
    ));
    assert_ne!(x, y);
    assert_eq!(s.task_count(), 3);
    assert_eq!(get(&mut s, 0, &first)["status"], "working");
}

#[test]
fn removed_methods_are_not_found() {
    let mut s = server();
    for method in ["tasks/result", "tasks/list"] {
        let r = bob(
            &mut s,
            0,
            &task_req(1, method, "x", json!({}), with_tasks()),
        );
        assert_eq!((error_code(&r), r.http_status), (-32601, 404), "{method}");
    }
}

#[test]
fn any_replica_sharing_the_task_store_serves_a_task_another_started() {
    let shared = Arc::new(MemoryTaskStore::default());
    let mut a = server().with_task_store(Box::new(shared.clone()));
    let mut b = server().with_task_store(Box::new(shared));
    let id = task_id(&bob(
        &mut a,
        0,
        &call(1, "deploy_as_task", json!({"env": "prod"}), with_tasks()),
    ));
    assert_eq!(get(&mut b, 5_000, &id)["status"], "working");
    let asking = get(&mut b, 20_000, &id);
    assert_eq!(asking["status"], "input_required");
    let yes =
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    bob(
        &mut a,
        25_000,
        &task_req(2, "tasks/update", &id, yes, with_tasks()),
    );
    let rolling = get(&mut b, 30_000, &id);
    assert_eq!(rolling["status"], "working");
    assert!(rolling["statusMessage"]
        .as_str()
        .unwrap()
        .starts_with("Rolling out"));
    let done = get(&mut b, 35_000, &id);
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "deployed to prod, release 2026.11.30-2"
    );
}

#[test]
fn a_task_asks_only_for_kinds_its_creating_request_declared() {
    let mut s = server();
    // No elicitation declared: the deploy cannot ask for its go-ahead, and says so.
    let caps = json!({"extensions": {EXTENSION: {}}});
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "deploy_as_task", json!({"env": "prod"}), caps),
    ));
    let ended = get(&mut s, 20_000, &id);
    assert_eq!(ended["status"], "failed");
    assert_eq!(ended["error"]["code"], -32021);
    assert!(ended.get("inputRequests").is_none());
}

#[test]
fn a_status_once_terminal_never_changes() {
    let mut s = server();
    let id = task_id(&bob(
        &mut s,
        0,
        &call(1, "deploy_as_task", json!({"env": "prod"}), with_tasks()),
    ));
    bob(
        &mut s,
        1_000,
        &task_req(2, "tasks/cancel", &id, json!({}), with_tasks()),
    );
    for at in [20_000, 40_000] {
        let t = get(&mut s, at, &id);
        assert_eq!(t["status"], TaskStatus::Cancelled.as_str());
        assert_eq!(t["lastUpdatedAt"], "2027-01-15T08:00:01.000Z");
    }
}
