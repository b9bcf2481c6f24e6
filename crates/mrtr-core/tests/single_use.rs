//! Single use that holds: one flow has one redemption id. Asking again looks the ticket up
//! and keeps its id and expiry, so a spent ticket cannot be laundered into a fresh one, a
//! live one cannot be forked into many, and asking never extends a ticket's life.

mod common;

use common::*;
use mrtr_core::checks::{Check, Status};
use mrtr_core::redemption::{Lookup, Redemption, RedemptionStore};
use mrtr_core::{Principal, Server};
use serde_json::{json, Value};

fn single_use() -> Server {
    let mut s = lab();
    s.config.policy.single_use = true;
    s
}

fn deploy(id: i64, ticket: Option<&str>, answer: bool) -> Value {
    let mut extra = json!({"arguments": {"env": "staging"}});
    if let Some(t) = ticket {
        extra["requestState"] = json!(t);
    }
    if answer {
        extra["inputResponses"] =
            json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    }
    tool(id, "deploy", extra)
}

fn bob(s: &mut Server, at_s: u64, msg: &Value) -> mrtr_core::Reply {
    send_as(s, Principal::user("bob"), at_s, msg)
}

fn ticket_of(r: &mrtr_core::Reply) -> String {
    result(r)["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no ticket in {:?}", r.response))
        .to_owned()
}

#[test]
fn a_spent_ticket_cannot_be_laundered_through_a_retry_without_the_answer() {
    let mut s = single_use();
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    assert_eq!(
        text(&bob(&mut s, 5, &deploy(2, Some(&t1), true))),
        "deployed to staging, release 2026.11.30-2"
    );
    // The same retry again: refused.
    let again = bob(&mut s, 6, &deploy(3, Some(&t1), true));
    assert!(again.error().unwrap().is_invalid_request_state());
    // The spent ticket without its answer: refused too, not traded for a fresh question.
    let laundered = bob(&mut s, 7, &deploy(4, Some(&t1), false));
    assert!(laundered.error().unwrap().is_invalid_request_state());
    let v = laundered.verdict().unwrap();
    assert_eq!(v.first_failure().unwrap().0, Check::SingleUse);
    assert!(
        laundered.minted().is_none(),
        "no new ticket for a spent one"
    );
}

#[test]
fn asking_again_keeps_the_tickets_id_and_expiry() {
    let mut s = single_use();
    let first = bob(&mut s, 0, &deploy(1, None, false));
    let t1 = ticket_of(&first);
    let c1 = first.minted().unwrap().1.clone();
    let again = bob(&mut s, 50, &deploy(2, Some(&t1), false));
    assert_eq!(result(&again)["resultType"], "input_required");
    let (t2, c2) = again.minted().unwrap();
    assert_ne!(t2, t1, "a new ticket (new issued-at)");
    assert_eq!(c2.tid, c1.tid, "the same flow");
    assert_eq!(c2.exp, c1.exp, "asking again never extends a ticket's life");
    assert_eq!(c2.iat, c1.iat + 50);
    // The re-asked ticket expires when the first would have.
    let late = bob(&mut s, c1.exp - 1_800_000_000, &deploy(3, Some(t2), true));
    assert_eq!(
        late.verdict().unwrap().first_failure().unwrap().0,
        Check::Expiry
    );
}

#[test]
fn forked_tickets_share_one_redemption() {
    let mut s = single_use();
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    let forks: Vec<String> = (0..5)
        .map(|i| {
            ticket_of(&bob(
                &mut s,
                1 + i,
                &deploy(10 + i as i64, Some(&t1), false),
            ))
        })
        .collect();
    let mut deployed = 0;
    for (i, t) in forks.iter().chain(std::iter::once(&t1)).enumerate() {
        let r = bob(&mut s, 10 + i as u64, &deploy(20 + i as i64, Some(t), true));
        if r.result().is_some() {
            deployed += 1;
        } else {
            assert!(r.error().unwrap().is_invalid_request_state());
        }
    }
    assert_eq!(deployed, 1, "six copies of one flow deploy once");
}

#[test]
fn asking_again_is_not_a_refusal() {
    let mut s = single_use();
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    let r = bob(&mut s, 3, &deploy(2, Some(&t1), false));
    let v = r.verdict().unwrap();
    assert!(v.first_failure().is_none());
    assert!(
        !v.accepted(),
        "not accepted either: the work waits for the answer"
    );
    assert!(matches!(
        v.status(Check::Answer),
        Some(Status::Unanswered { .. })
    ));
    assert_eq!(v.status(Check::SingleUse), Some(&Status::Passed));
    assert!(r.error().is_none());
    assert_eq!(s.redeemed_count(), 0, "looking up spends nothing");
}

#[test]
fn without_single_use_asking_again_still_keeps_the_deadline() {
    let mut s = lab();
    let first = bob(&mut s, 0, &deploy(1, None, false));
    let (t1, exp) = (ticket_of(&first), first.minted().unwrap().1.exp);
    let mut t = t1;
    for i in 1..5 {
        let r = bob(&mut s, i * 25, &deploy(i as i64 + 1, Some(&t), false));
        assert_eq!(r.minted().unwrap().1.exp, exp);
        t = ticket_of(&r);
    }
}

#[test]
fn a_naive_server_launders_a_spent_ticket() {
    // What the lab shows as the wrong way: a fresh ticket on every ask-again.
    let mut s = single_use();
    s.config.naive_ask_again = true;
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    assert_eq!(
        text(&bob(&mut s, 5, &deploy(2, Some(&t1), true))),
        "deployed to staging, release 2026.11.30-2"
    );
    let fresh = bob(&mut s, 6, &deploy(3, Some(&t1), false));
    let t2 = ticket_of(&fresh);
    assert_ne!(
        s.codec.open(&t2).unwrap().tid,
        s.codec.open(&t1).unwrap().tid
    );
    assert_eq!(
        text(&bob(&mut s, 7, &deploy(4, Some(&t2), true))),
        "deployed to staging, release 2026.11.30-2"
    );
}

/// A store that is down: every redemption and lookup fails closed.
struct Down;

impl RedemptionStore for Down {
    fn redeem(&self, _: &str, _: u64, _: u64, _: u64) -> Redemption {
        Redemption::Unavailable
    }
    fn lookup(&self, _: &str, _: u64) -> Lookup {
        Lookup::Unavailable
    }
    fn settle(&self, _: &str, _: bool) {}
    fn len(&self) -> usize {
        0
    }
}

#[test]
fn a_store_that_does_not_answer_refuses_rather_than_accepts() {
    let mut s = single_use().with_store(Box::new(Down));
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    for (id, answer) in [(2, true), (3, false)] {
        let r = bob(&mut s, 5, &deploy(id, Some(&t1), answer));
        // The server's fault, not the ticket's: -32603, and nothing was done.
        let e = r.error().unwrap();
        assert_eq!(e.code, mrtr_core::error::INTERNAL_ERROR);
        assert!(e.message.contains("nothing was done"), "{e}");
        assert_eq!(
            r.verdict().unwrap().first_failure().unwrap().0,
            Check::SingleUse
        );
    }
    // A first call needs no store.
    assert!(bob(&mut s, 6, &deploy(4, None, false)).result().is_some());
}

#[test]
fn a_full_memory_says_it_is_full_and_spends_nothing() {
    use mrtr_core::redemption::MemoryStore;
    let mut s = single_use().with_store(Box::new(MemoryStore::new(1)));
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    let t2 = ticket_of(&bob(&mut s, 10, &deploy(2, None, false)));
    assert!(bob(&mut s, 11, &deploy(3, Some(&t1), true))
        .result()
        .is_some());
    let r = bob(&mut s, 12, &deploy(4, Some(&t2), true));
    let e = r.error().unwrap();
    assert_eq!(e.code, mrtr_core::error::INTERNAL_ERROR);
    assert!(
        e.message.contains("memory of redemptions is full")
            && e.message.contains("nothing was done"),
        "{e}"
    );
    // Still full while t1's id lives (it expires at 120 s); then there is room, and the
    // same retry goes through: nothing was spent.
    assert!(bob(&mut s, 119, &deploy(5, Some(&t2), true))
        .error()
        .is_some());
    assert_eq!(
        text(&bob(&mut s, 121, &deploy(6, Some(&t2), true))),
        "deployed to staging, release 2026.11.30-2"
    );
}

#[test]
fn a_handler_that_finishes_without_the_answer_spends_the_ticket_once() {
    // The multiple-inputs fixture asks for what the client declared: three kinds at first.
    // A retry that declares only elicitation and answers only that finishes the work while
    // the ticket still waits for two keys: it must be spent then, and only once.
    let mut s = single_use();
    let r1 = bob(
        &mut s,
        0,
        &tool(1, "test_input_required_result_multiple_inputs", json!({})),
    );
    let t = ticket_of(&r1);
    assert_eq!(result(&r1)["inputRequests"].as_object().unwrap().len(), 3);
    let retry = |id| {
        let mut m = tool(
            id,
            "test_input_required_result_multiple_inputs",
            json!({
            "requestState": t,
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Bob"}}}}),
        );
        m["params"]["_meta"] = meta(json!({"elicitation": {}}));
        m
    };
    let first = bob(&mut s, 1, &retry(2));
    assert!(
        text(&first).starts_with("name: Bob"),
        "{:?}",
        first.response
    );
    assert!(first.verdict().unwrap().unanswered().is_some());
    let second = bob(&mut s, 2, &retry(3));
    assert!(second.error().unwrap().is_invalid_request_state());
}

/// A retry whose answer is of another kind than the question (here a sampling result under
/// the form's key) is no answer: asked again, on a ticket of the same id and deadline, and
/// nothing is spent, so bob's honest retry still deploys, once.
#[test]
fn a_wrong_kind_answer_is_asked_again_on_the_same_flow_and_spends_nothing() {
    let mut s = single_use();
    let first = bob(&mut s, 0, &deploy(1, None, false));
    let (t1, c1) = first
        .minted()
        .map(|(t, c)| (t.to_owned(), c.clone()))
        .unwrap();
    let mut wrong = deploy(2, Some(&t1), false);
    wrong["params"]["inputResponses"] = json!({"confirm": {"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "m"}});
    let again = bob(&mut s, 1, &wrong);
    let v = again.verdict().unwrap();
    assert_eq!(
        v.status(Check::Answer),
        Some(&Status::Unanswered {
            keys: vec!["confirm".into()]
        })
    );
    let (t2, c2) = again
        .minted()
        .map(|(t, c)| (t.to_owned(), c.clone()))
        .unwrap();
    assert_eq!(
        (c2.tid.as_str(), c2.exp),
        (c1.tid.as_str(), c1.exp),
        "same flow, same deadline"
    );
    assert_eq!(s.redeemed_count(), 0, "a wrong-kind answer spends nothing");
    assert_eq!(
        text(&bob(&mut s, 2, &deploy(3, Some(&t2), true))),
        "deployed to staging, release 2026.11.30-2"
    );
    assert!(bob(&mut s, 3, &deploy(4, Some(&t1), true))
        .error()
        .unwrap()
        .is_invalid_request_state());
    // Past the first ticket's deadline, the re-asked one is refused at expiry as well.
    let mut late = lab();
    let t = ticket_of(&bob(&mut late, 0, &deploy(5, None, false)));
    let t2 = ticket_of(&bob(&mut late, 100, &wrong_with(&t)));
    let r = bob(&mut late, 120, &deploy(6, Some(&t2), true));
    assert_eq!(
        r.verdict().unwrap().first_failure().unwrap().0,
        Check::Expiry
    );
}

fn wrong_with(ticket: &str) -> Value {
    let mut m = deploy(9, Some(ticket), false);
    m["params"]["inputResponses"] = json!({"confirm": {"roots": []}});
    m
}

/// Asking again after an answer the handler does not accept (a decline) and the next round of a
/// multi-round flow both continue the flow: same id, same deadline, nothing spent until the end.
#[test]
fn every_ticket_minted_for_a_valid_ticket_inherits_its_id_and_deadline() {
    let mut s = single_use();
    let who = Principal::user("bob");
    let call = |id: i64, name: &str, ticket: Option<&str>, answers: Value| {
        let mut extra = json!({"inputResponses": answers});
        if let Some(t) = ticket {
            extra["requestState"] = json!(t);
        }
        tool(id, name, extra)
    };
    let name = "test_input_required_result_multi_round";
    let r1 = send_as(&mut s, who.clone(), 0, &call(1, name, None, json!({})));
    let (t1, c1) = r1.minted().map(|(t, c)| (t.to_owned(), c.clone())).unwrap();
    let ok = json!({"step1": {"action": "accept", "content": {"ok": true}}});
    // Step 1 answered, twice: the same step-2 flow each time, nothing spent.
    for (id, at) in [(2, 5), (3, 6)] {
        let r = send_as(
            &mut s,
            who.clone(),
            at,
            &call(id, name, Some(&t1), ok.clone()),
        );
        let (_, c) = r.minted().unwrap();
        assert_eq!((c.tid.as_str(), c.exp), (c1.tid.as_str(), c1.exp));
    }
    let t2 = ticket_of(&send_as(
        &mut s,
        who.clone(),
        7,
        &call(4, name, Some(&t1), ok),
    ));
    let done = json!({"step2": {"action": "accept", "content": {"ok": true}}});
    let r = send_as(
        &mut s,
        who.clone(),
        8,
        &call(5, name, Some(&t2), done.clone()),
    );
    assert_eq!(text(&r), "multi-round complete: both steps answered");
    assert!(
        send_as(&mut s, who.clone(), 9, &call(6, name, Some(&t2), done))
            .error()
            .unwrap()
            .is_invalid_request_state()
    );
    // A decline the handler asks again after: same flow. (At another second than the first
    // call above: the tests' randomness is seeded by the time, so ids would repeat.)
    let name = "test_input_required_result_request_state";
    let r = send_as(&mut s, who.clone(), 20, &call(7, name, None, json!({})));
    let (t, c) = r.minted().map(|(t, c)| (t.to_owned(), c.clone())).unwrap();
    let declined = json!({"confirm": {"action": "decline"}});
    let r = send_as(&mut s, who, 60, &call(8, name, Some(&t), declined));
    let (_, again) = r.minted().unwrap();
    assert_eq!((again.tid.as_str(), again.exp), (c.tid.as_str(), c.exp));
}

/// How many times the counted deploy below did its work.
static DEPLOYS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The lesson's deploy with a side effect a library user's handler would have: each time it
/// completes, it counts one deploy, after taking a while (as a real deploy does).
fn counted_deploy(inv: &mrtr_core::catalog::Invocation<'_>) -> mrtr_core::catalog::Outcome {
    let out = mrtr_core::fixtures::deploy(inv);
    if matches!(out, mrtr_core::catalog::Outcome::Complete(_)) {
        std::thread::sleep(std::time::Duration::from_millis(30));
        DEPLOYS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    out
}

#[test]
fn racing_copies_of_one_retry_run_a_handler_with_side_effects_once() {
    let mut s = single_use();
    for t in s.catalog.tools.iter_mut().filter(|t| t.name == "deploy") {
        t.handler = counted_deploy;
    }
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    let s = &s;
    let barrier = std::sync::Barrier::new(8);
    let replies: Vec<mrtr_core::Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (t1, barrier) = (&t1, &barrier);
                scope.spawn(move || {
                    let msg = deploy(10 + i, Some(t1), true);
                    barrier.wait();
                    let clock = mrtr_core::FixedClock(EPOCH_MS + 5_000);
                    let mut rng = mrtr_core::SeededEntropy::new(i as u64);
                    let who = Principal::user("bob");
                    s.handle(
                        &msg,
                        &mut mrtr_core::CallContext {
                            principal: &who,
                            clock: &clock,
                            entropy: &mut rng,
                        },
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let done = replies.iter().filter(|r| r.error().is_none()).count();
    assert_eq!(done, 1, "one copy completes");
    assert_eq!(
        DEPLOYS.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the handler's work was done once, not once per copy"
    );
    for r in replies.iter().filter(|r| r.error().is_some()) {
        assert!(r.error().unwrap().is_invalid_request_state());
        assert_eq!(
            r.verdict().unwrap().first_failure().unwrap().0,
            Check::SingleUse
        );
    }
}

#[test]
fn a_claim_is_given_back_when_the_handler_asks_again_or_fails() {
    // A retry without its answer: claimed, the handler asks again, the claim is given back,
    // so the flow's next ticket (same id) completes.
    let mut s = single_use();
    let t1 = ticket_of(&bob(&mut s, 0, &deploy(1, None, false)));
    let t2 = ticket_of(&bob(&mut s, 2, &deploy(2, Some(&t1), false)));
    assert_eq!(s.redeemed_count(), 0, "asking again spends nothing");
    assert_eq!(
        text(&bob(&mut s, 4, &deploy(3, Some(&t2), true))),
        "deployed to staging, release 2026.11.30-2"
    );
    assert_eq!(s.redeemed_count(), 1);
}
