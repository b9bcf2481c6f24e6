//! The engine against any server at all: driven step by step with generated answers (an
//! honest simulated server's, mixed with garbage, transport errors, answers to another need
//! and the server's own tickets mangled), an audit always ends, within the requests it
//! promises ([`max_requests`]; each row within its own budget, a debug assertion in the
//! engine), without a panic, and a report it gives has one result per row.

use mrtr_audit::sim::SimWire;
use mrtr_audit::{max_requests, serve, Answer, AuditRun, Exchange, Need, Options, Turn, ROWS};
use mrtr_core::checks::CheckPolicy;
use proptest::prelude::*;
use serde_json::{json, Value};

/// One answer the generated server gives: a choice and a number to vary it by.
#[derive(Clone, Debug)]
struct Pick(u8, u32);

fn body(n: u32, need: &Need) -> Value {
    let id = match need {
        Need::Send { msg, .. } => msg.get("id").cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    };
    match n % 9 {
        0 => Value::Null,
        1 => json!({}),
        2 => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "no"}}),
        3 => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": format!("v1.{n}"),
            "inputRequests": {"q": {"method": "elicitation/create", "params": {"mode": "form", "message": "?", "requestedSchema": {"type": "object"}}}}}})
        }
        4 => json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}),
        5 => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}}, {"name": 7}]}})
        }
        6 => {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": n, "inputRequests": []}})
        }
        7 => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "surprise"}}),
        _ => json!([1, 2, {"id": id}]),
    }
}

fn answer(pick: &Pick, need: &Need, wire: &mut SimWire) -> Answer {
    let Pick(kind, n) = pick;
    match kind % 8 {
        // The honest simulated server, most of the time, so the audit gets deep into its rows.
        0..=3 => serve(wire, need.clone()),
        4 => match need {
            Need::Send { .. } => Answer::Sent(Ok(Exchange {
                status: Some(200 + (n % 400) as u16),
                body: body(*n, need),
            })),
            Need::Race { msgs, .. } => Answer::Raced(Some(Ok(msgs
                .iter()
                .map(|_| Exchange {
                    status: Some(200),
                    body: body(*n, need),
                })
                .collect()))),
            Need::OversizeBody { .. } => Answer::Oversize(Some(Ok(Exchange {
                status: None,
                body: body(*n, need),
            }))),
            Need::Clock => Answer::Clock(u64::from(*n)),
            Need::Wait { .. } => Answer::Waited,
            Need::Restart => Answer::Restarted(Some(Err("the restart command failed".into()))),
        },
        5 => match need {
            Need::Send { .. } => Answer::Sent(Err("connection reset".into())),
            Need::Race { .. } => Answer::Raced(if n % 2 == 0 { None } else { Some(Ok(vec![])) }),
            Need::OversizeBody { .. } => Answer::Oversize(None),
            Need::Restart => Answer::Restarted(None),
            _ => serve(wire, need.clone()),
        },
        // An answer to another need than the one asked.
        6 => Answer::Waited,
        // The simulated server's answer with its ticket mangled.
        _ => match serve(wire, need.clone()) {
            Answer::Sent(Ok(mut ex)) => {
                if let Some(t) = ex.body.pointer_mut("/result/requestState") {
                    *t = json!(format!("{}x", t.as_str().unwrap_or("")));
                }
                Answer::Sent(Ok(ex))
            }
            other => other,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn any_answers_end_the_audit_within_its_budget(
        picks in proptest::collection::vec((0u8..8, any::<u32>()).prop_map(|(k, n)| Pick(k, n)), 1..64),
        single_use in any::<bool>(),
        seed in any::<u64>(),
        // Served honestly up to here, so generated answers land at every depth of the audit.
        honest_first in 0usize..500,
    ) {
        let policy = CheckPolicy { single_use, ..CheckPolicy::default() };
        let mut wire = SimWire::new(policy, false, seed);
        let opts = Options { expect_single_use: single_use, ttl_wait_s: Some(wire.ttl_s() + 1), ..Options::default() };
        let (mut run, mut turn) = AuditRun::start(opts, mrtr_audit::Callers::http(Some("bob-token"), Some("alice-token")));
        let mut sent = 0usize;
        for step in 0.. {
            prop_assert!(step <= 4 * max_requests(), "the audit did not end");
            turn = match turn {
                Turn::Done(Ok(report)) => {
                    prop_assert_eq!(report.rows.len(), ROWS.len());
                    prop_assert!(report.requests <= max_requests());
                    break;
                }
                Turn::Done(Err(_)) => break,
                Turn::Need(need) => {
                    sent += matches!(need, Need::Send { .. } | Need::OversizeBody { .. }) as usize;
                    prop_assert!(sent <= max_requests());
                    // Honest answers before `honest_first` and after the generated ones run out.
                    let pick = step
                        .checked_sub(honest_first)
                        .and_then(|i| picks.get(i).cloned())
                        .unwrap_or(Pick(0, 0));
                    run.answer(answer(&pick, &need, &mut wire))
                }
            };
        }
    }
}
