//! The lesson's ticket table, reproduced from real runs of the server engine: one ticket
//! minted at t = 0 (TTL 120 s) and six retries against the clock.

mod common;

use common::symbols;
use mrtr_core::checks::Check;
use mrtr_core::ticket::rewrite_payload;
use mrtr_core::wire::{ClientCapabilities, Envelope};
use mrtr_core::{CallContext, FixedClock, Key, Principal, Reply, SeededEntropy, Server};
use serde_json::{json, Value};

const EPOCH_MS: u64 = 1_800_000_000_000;

fn server(single_use: bool) -> Server {
    let mut s = Server::lab(Key::new("k1", b"0123456789abcdef0123456789abcdef").unwrap());
    s.config.policy.single_use = single_use;
    s
}

fn meta() -> Value {
    Envelope::new(
        ClientCapabilities {
            elicitation_form: true,
            ..Default::default()
        },
        None,
    )
    .to_meta()
}

fn send(s: &mut Server, who: &str, at_s: u64, msg: Value) -> Reply {
    let p = Principal::user(who);
    let clock = FixedClock(EPOCH_MS + at_s * 1000);
    let mut rng = SeededEntropy::new(at_s);
    s.handle(
        &msg,
        &mut CallContext {
            principal: &p,
            clock: &clock,
            entropy: &mut rng,
        },
    )
}

fn call(id: i64, env: &str, ticket: Option<&str>, answer: bool) -> Value {
    let mut params = json!({"_meta": meta(), "name": "deploy", "arguments": {"env": env}});
    if answer {
        params["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    }
    if let Some(t) = ticket {
        params["requestState"] = json!(t);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn mint(s: &mut Server) -> String {
    let r = send(s, "bob", 0, call(2, "staging", None, false));
    let result = r.result().unwrap();
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    result["requestState"].as_str().unwrap().to_owned()
}

struct Row {
    name: &'static str,
    who: &'static str,
    at_s: u64,
    env: &'static str,
    edit: bool,
    expect: &'static str,
}

const ROWS: [Row; 6] = [
    Row {
        name: "honest",
        who: "bob",
        at_s: 8,
        env: "staging",
        edit: false,
        expect: "✓✓✓✓✓",
    },
    Row {
        name: "edited to prod",
        who: "bob",
        at_s: 12,
        env: "staging",
        edit: true,
        expect: "✗––––",
    },
    Row {
        name: "alice with bob's ticket",
        who: "alice",
        at_s: 20,
        env: "staging",
        edit: false,
        expect: "✓✗–––",
    },
    Row {
        name: "five minutes late",
        who: "bob",
        at_s: 300,
        env: "staging",
        edit: false,
        expect: "✓✓✗––",
    },
    Row {
        name: "staging ticket on prod",
        who: "bob",
        at_s: 30,
        env: "prod",
        edit: false,
        expect: "✓✓✓✗–",
    },
    Row {
        name: "sent twice",
        who: "bob",
        at_s: 40,
        env: "staging",
        edit: false,
        expect: "✓✓✓✓✓",
    },
];

fn run_table(single_use: bool) -> Vec<(String, Reply)> {
    let mut s = server(single_use);
    let ticket = mint(&mut s);
    ROWS.iter()
        .enumerate()
        .map(|(i, row)| {
            let t = if row.edit {
                rewrite_payload(&ticket, |p| p.replace("staging", "prod")).unwrap()
            } else {
                ticket.clone()
            };
            let r = send(
                &mut s,
                row.who,
                row.at_s,
                call(3 + i as i64, row.env, Some(&t), true),
            );
            let symbols = symbols(r.verdict().unwrap());
            (symbols, r)
        })
        .collect()
}

#[test]
fn the_lessons_table() {
    for (row, (symbols, reply)) in ROWS.iter().zip(run_table(false)) {
        assert_eq!(symbols, row.expect, "{}", row.name);
        if row.expect == "✓✓✓✓✓" {
            assert_eq!(
                reply.result().unwrap()["content"][0]["text"],
                "deployed to staging, release 2026.11.30-2",
                "{}",
                row.name
            );
        } else {
            let e = reply.error().unwrap();
            assert!(e.is_invalid_request_state(), "{}: {e}", row.name);
            assert_eq!(e.message, "Invalid or expired requestState");
            assert_eq!(reply.http_status, 200);
        }
    }
}

#[test]
fn with_single_use_the_second_redemption_is_refused() {
    let rows = run_table(true);
    assert_eq!(rows[0].0, "✓✓✓✓✓✓");
    let (symbols, reply) = &rows[5];
    assert_eq!(symbols, "✓✓✓✓✓✗");
    assert_eq!(
        reply.verdict().unwrap().first_failure().unwrap().0,
        Check::SingleUse
    );
    assert!(reply.error().unwrap().is_invalid_request_state());
    // Refused retries never burn the ticket: only the honest one was recorded.
    assert_eq!(rows[1].0, "✗–––––");
}

#[test]
fn the_edited_ticket_still_reads_prod() {
    // Signed is not secret: the edit is easy because the payload is readable.
    let mut s = server(false);
    let ticket = mint(&mut s);
    let edited = rewrite_payload(&ticket, |p| p.replace("staging", "prod")).unwrap();
    assert!(mrtr_core::ticket::payload_text(&edited)
        .unwrap()
        .contains("\"prod\""));
    assert_ne!(edited, ticket);
}

#[test]
fn with_the_signature_check_off_the_edit_deploys_to_prod() {
    let mut s = server(false);
    let ticket = mint(&mut s);
    s.config.policy.signature = false;
    let edited = rewrite_payload(&ticket, |p| p.replace("staging", "prod")).unwrap();
    let r = send(&mut s, "bob", 12, call(3, "staging", Some(&edited), true));
    assert_eq!(symbols(r.verdict().unwrap()), "○✓✓✓✓");
    assert_eq!(
        r.result().unwrap()["content"][0]["text"],
        "deployed to prod, release 2026.11.30-2"
    );
}

#[test]
fn a_retry_without_the_answer_is_asked_again() {
    let mut s = server(true);
    let ticket = mint(&mut s);
    let r = send(&mut s, "bob", 8, call(3, "staging", Some(&ticket), false));
    // Not a refusal: the answer is marked unanswered and single use only looks the ticket up.
    assert_eq!(symbols(r.verdict().unwrap()), "✓✓✓✓?✓");
    assert_eq!(
        r.verdict().unwrap().unanswered(),
        Some(&["confirm".to_owned()][..])
    );
    let result = r.result().unwrap();
    assert_eq!(result["resultType"], "input_required");
    assert!(result["inputRequests"]["confirm"].is_object());
    // Not burned: the honest retry with the answer still goes through.
    let r = send(&mut s, "bob", 9, call(4, "staging", Some(&ticket), true));
    assert_eq!(
        r.result().unwrap()["content"][0]["text"],
        "deployed to staging, release 2026.11.30-2"
    );
}

#[test]
fn a_declined_confirmation_does_not_deploy() {
    let mut s = server(false);
    let ticket = mint(&mut s);
    let mut msg = call(3, "staging", Some(&ticket), false);
    msg["params"]["inputResponses"] = json!({"confirm": {"action": "decline"}});
    let r = send(&mut s, "bob", 8, msg);
    let text = r.result().unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with("not deployed"), "{text}");
}
