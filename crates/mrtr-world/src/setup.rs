//! The common start of the ticket widgets: bob called deploy to staging on replica A at
//! t = 0 and holds the ticket it minted, with the honest retry ready to send.

use mrtr_core::checks::Check;
use mrtr_core::ticket::{Claims, Seal};
use mrtr_core::{AgreeableHost, Principal, Step as ClientStep, Verdict};
use serde_json::{json, Value};

use crate::actor::{Actor, Replica};
use crate::checks::{CheckWords, SealWords};
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
    let caption = format!("A records the pending work, who asked, a fingerprint of the request and a deadline, {} the lot, and drops it from memory.", knobs.seal.verb());
    w.step(
        "Replica A mints the ticket at t = 0",
        caption,
        Actor::ReplicaA,
    );
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

/// What a request came to, read off the server's response and the checks' verdict: the one
/// place the lesson decides what counts as done, asked again or refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The work was done: the result's text.
    Completed(String),
    /// The retry lacked an answer, so the server asked its question again.
    AskedAgain,
    /// Refused, at the first failed check when one failed, with the error code sent.
    Refused {
        check: Option<Check>,
        code: Option<i64>,
    },
}

impl Outcome {
    pub fn of(response: &Value, verdict: &Verdict) -> Outcome {
        if response.get("error").is_some() || response.get("result").is_none() {
            return Outcome::Refused {
                check: verdict.first_failure().map(|(c, _)| c),
                code: response.pointer("/error/code").and_then(Value::as_i64),
            };
        }
        if response.pointer("/result/resultType") == Some(&json!("input_required")) {
            return Outcome::AskedAgain;
        }
        let text = response
            .pointer("/result/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        Outcome::Completed(text.to_owned())
    }

    pub fn completed(&self) -> bool {
        matches!(self, Outcome::Completed(_))
    }
}

/// What a replica made of one request, as the widgets show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub response: Value,
    /// The checks on the ticket (empty when the request carried none).
    pub verdict: Verdict,
    pub outcome: Outcome,
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
    let verdict = reply.verdict().cloned().unwrap_or(Verdict {
        outcomes: vec![],
        claims: None,
    });
    let response = reply.response.unwrap_or(Value::Null);
    let outcome = Outcome::of(&response, &verdict);
    Judgement {
        answer: answer_words(&outcome, &verdict, &response, w.knobs.seal),
        detail: verdict
            .first_failure()
            .map(|(c, r)| format!("{} check failed: {r}", c.id())),
        outcome,
        response,
        verdict,
    }
}

/// What the server's answer means, in plain words.
/// What a client does after its retry is refused: the ticket is spent or spoiled, so it
/// starts the request over.
pub const AFTER_A_REFUSAL: &str = "What a client does next: start over with the same call and no ticket, which brings a fresh question and a fresh ticket. The error is the same whatever failed, so whoever sent a forged or stolen ticket learns nothing from it.";

pub fn answer_words(outcome: &Outcome, verdict: &Verdict, response: &Value, seal: Seal) -> String {
    match outcome {
        Outcome::Completed(text) => format!("Accepted: {text}."),
        Outcome::AskedAgain => {
            "Asked again: the retry did not carry the answer, so the server repeats its question."
                .into()
        }
        Outcome::Refused { .. } => match verdict.first_failure() {
            Some((check, why)) => format!(
                "Refused: \u{201c}{}\u{201d} failed ({}).",
                check.question(seal),
                crate::checks::reason(why)
            ),
            None => match response.pointer("/error/message").and_then(Value::as_str) {
                Some(m) => format!("Refused: {m}."),
                None => "No answer.".into(),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_with_no_checks_run_is_refused_not_accepted() {
        let empty = Verdict {
            outcomes: vec![],
            claims: None,
        };
        assert!(empty.accepted(), "the core's verdict: nothing failed");
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid params"}});
        assert_eq!(
            Outcome::of(&error, &empty),
            Outcome::Refused {
                check: None,
                code: Some(-32602)
            }
        );
        assert_eq!(
            answer_words(&Outcome::of(&error, &empty), &empty, &error, Seal::Signed),
            "Refused: Invalid params."
        );
        let done = json!({"result": {"content": [{"type": "text", "text": "deployed"}]}});
        assert!(Outcome::of(&done, &empty).completed());
        let asked = json!({"result": {"resultType": "input_required"}});
        assert_eq!(Outcome::of(&asked, &empty), Outcome::AskedAgain);
        assert!(!Outcome::of(&Value::Null, &empty).completed());
    }
}
