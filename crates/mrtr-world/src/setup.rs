//! The common start of the ticket widgets: bob called deploy to staging on replica A at
//! t = 0 and holds the ticket it minted, with the honest retry ready to send.

use mrtr_core::ticket::Claims;
use mrtr_core::{AgreeableHost, Principal, Step as ClientStep};
use serde_json::{json, Value};

use crate::actor::{Actor, Replica};
use crate::knobs::Knobs;
use crate::trace::MessageKind;
use crate::world::World;

pub struct Minted {
    pub world: World,
    /// The first call.
    pub call: Value,
    /// A's `input_required` response.
    pub response: Value,
    pub ticket: String,
    pub claims: Claims,
    /// The honest retry: new id, the answer, the ticket byte for byte.
    pub retry: Value,
}

pub fn bob() -> Principal {
    Principal::user("bob")
}

pub fn alice() -> Principal {
    Principal::user("alice")
}

/// Plays the call and A's answer. `None` only if the knobs make A refuse the call.
pub fn mint(knobs: Knobs) -> Option<Minted> {
    let mut w = World::new(knobs);
    let (mut pending, call) = w.client.begin(
        "tools/call",
        json!({"name": "deploy", "arguments": {"env": "staging"}}),
    );
    w.send(
        Actor::Client,
        Actor::Balancer,
        MessageKind::Call,
        call.clone(),
    );
    w.route(Replica::A, "round robin: A is next");
    let reply = w.serve(Replica::A, &bob(), &call);
    let response = reply.response.clone()?;
    w.send(
        Actor::Balancer,
        Actor::Client,
        MessageKind::InputRequired,
        response.clone(),
    );
    w.forgot(Replica::A);
    w.step("Replica A mints the ticket at t = 0", "A records the pending work, who asked, a fingerprint of the request and a deadline, signs the lot, and drops it from memory.", Actor::ReplicaA);
    let (ticket, claims) = reply.minted().map(|(t, c)| (t.to_owned(), c.clone()))?;
    let mut host = AgreeableHost::with(json!({"confirm": true}));
    let ClientStep::Retry(retry) = w.client.on_response(&mut pending, &response, &mut host) else {
        return None;
    };
    Some(Minted {
        world: w,
        call,
        response,
        ticket,
        claims,
        retry,
    })
}

/// The retry with another ticket.
pub fn with_ticket(retry: &Value, ticket: &str) -> Value {
    let mut r = retry.clone();
    r["params"]["requestState"] = json!(ticket);
    r
}

/// The retry for another environment (the same ticket, spent on another request).
pub fn with_env(retry: &Value, env: &str) -> Value {
    let mut r = retry.clone();
    r["params"]["arguments"]["env"] = json!(env);
    r
}

/// The retry without its answer.
pub fn without_answer(retry: &Value) -> Value {
    let mut r = retry.clone();
    if let Some(p) = r["params"].as_object_mut() {
        p.shift_remove("inputResponses");
    }
    r
}

pub fn with_id(msg: &Value, id: i64) -> Value {
    let mut m = msg.clone();
    m["id"] = json!(id);
    m
}

/// What a replica made of one request, as the widgets show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub response: Value,
    /// The checks on the ticket (empty when the request carried none).
    pub verdict: mrtr_core::Verdict,
    pub answer: String,
    /// The reason the server logged (never sent).
    pub detail: Option<String>,
}

/// Sends `msg` from `who` to `replica` at `at_s` seconds and reads what came back.
pub fn judge(
    w: &mut World,
    replica: Replica,
    who: &Principal,
    at_s: u64,
    msg: &Value,
) -> Judgement {
    w.jump_to(at_s);
    let reply = w.serve(replica, who, msg);
    let verdict = reply.verdict().cloned().unwrap_or(mrtr_core::Verdict {
        outcomes: vec![],
        claims: None,
    });
    let response = reply.response.unwrap_or(Value::Null);
    Judgement {
        answer: answer_words(&response, Some(&verdict)),
        detail: verdict
            .first_failure()
            .map(|(c, r)| format!("{} check failed: {r}", c.id())),
        response,
        verdict,
    }
}

/// What the server's answer means, in plain words.
pub fn answer_words(response: &Value, verdict: Option<&mrtr_core::Verdict>) -> String {
    if let Some(text) = response
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
    {
        return format!("Accepted: {text}.");
    }
    if response.pointer("/result/resultType") == Some(&json!("input_required")) {
        return "Asked again: the retry did not carry the answer, so the server repeats its question.".into();
    }
    match verdict.and_then(|v| v.first_failure()) {
        Some((check, reason)) => format!(
            "Refused: \u{201c}{}\u{201d} failed ({reason}).",
            check.question()
        ),
        None => match response.pointer("/error/message").and_then(Value::as_str) {
            Some(m) => format!("Refused: {m}."),
            None => "No answer.".into(),
        },
    }
}
