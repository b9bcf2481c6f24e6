//! The common start of the ticket widgets: bob called deploy to staging on replica A at
//! t = 0 and holds the ticket it minted, with the honest retry ready to send.

use mrtr_core::answered::{classify, Answered};
use mrtr_core::checks::{Check, Status};
use mrtr_core::ticket::{Claims, Seal};
use mrtr_core::{AgreeableHost, Principal, Step as ClientStep, Verdict};
use serde_json::{json, Value};

use crate::actor::{Actor, Replica};
use crate::checks::{CheckWords, SealWords};
use crate::knobs::Knobs;
use crate::trace::MessageKind;
use crate::world::World;

/// The common start, played: the world as it stands after A minted bob's ticket.
pub struct Minted {
    /// The world, its trace up to the mint.
    pub world: World,
    /// The first call.
    pub call: Value,
    /// A's `input_required` response.
    pub response: Value,
    /// The ticket A minted.
    pub ticket: String,
    /// What it carries.
    pub claims: Claims,
    /// The honest retry: new id, the answer, the ticket byte for byte.
    pub retry: Value,
}

/// The user of the lesson, whose ticket it is.
pub fn bob() -> Principal {
    Principal::user("bob")
}

/// The thief: another caller, holding bob's ticket.
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

/// The message with another JSON-RPC id.
pub fn with_id(msg: &Value, id: i64) -> Value {
    let mut m = msg.clone();
    m["id"] = json!(id);
    m
}

/// What a request came to, in the lesson's terms (not a handler's
/// [`mrtr_core::catalog::Outcome`]), read off the server's response and the checks' verdict:
/// the one place the lesson decides what counts as done, asked again or refused.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestOutcome {
    /// The work was done: the result's text.
    Completed(String),
    /// The retry lacked an answer, so the server asked its question again.
    AskedAgain,
    /// Refused, at the first failed check when one failed, with the error code sent.
    Refused {
        /// The first check that failed; `None` when no check did (e.g. a malformed request).
        check: Option<Check>,
        /// The error code, if the response was an error.
        code: Option<i64>,
    },
}

impl RequestOutcome {
    /// The core's reading of the response ([`classify`]) in the lesson's terms: a refusal,
    /// or a response that is none, is refused at the verdict's first failed check.
    pub fn of(response: &Value, verdict: &Verdict) -> RequestOutcome {
        match classify(response) {
            Answered::Complete(result) => RequestOutcome::Completed(
                result
                    .pointer("/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            Answered::InputRequired(_) => RequestOutcome::AskedAgain,
            answered @ (Answered::Error(_) | Answered::Malformed(_)) => RequestOutcome::Refused {
                check: verdict.first_failure().map(|(c, _)| c),
                code: answered.code(),
            },
        }
    }

    /// True when the work was done.
    pub fn completed(&self) -> bool {
        matches!(self, RequestOutcome::Completed(_))
    }
}

pub use crate::tone::{Harm, HarmKind};

/// The text of a result that deployed something.
pub fn deployed_text(response: &Value) -> Option<&str> {
    response
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .filter(|t| t.starts_with("deployed"))
}

/// One confirmation and every request sent on it: what the user confirmed (a deploy to this
/// environment, for this caller, while the ticket lives) and how many deploys it has had.
/// The one place the lesson decides whether a deploy is the one the user asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// Whom the ticket was minted for.
    pub owner: Principal,
    /// The environment the user was asked about and confirmed.
    pub confirmed_env: String,
    /// When the ticket the user confirmed on expires, as t on the world's clock.
    pub deadline_s: u64,
    /// The id of that ticket.
    pub tid: String,
    /// Deploys done on this confirmation so far.
    pub deploys: usize,
}

impl Flow {
    /// The flow of the ticket the user confirmed on, as its replica minted it.
    pub fn of(claims: &Claims) -> Flow {
        Flow {
            owner: claims.principal(),
            confirmed_env: claims
                .state
                .get("env")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            deadline_s: claims.exp.saturating_sub(crate::world::EPOCH_S),
            tid: claims.tid.clone(),
            deploys: 0,
        }
    }

    /// Records one request of the flow, sent by `who` at `at_s`, with what came of it; says
    /// what went wrong if it deployed anything but the one deploy the user confirmed.
    pub fn record(
        &mut self,
        who: &Principal,
        at_s: u64,
        request: &Value,
        verdict: &Verdict,
        response: &Value,
    ) -> Option<Harm> {
        deployed_text(response)?;
        self.deploys += 1;
        // What the replica deployed: the environment in the ticket it opened (the work comes
        // from the ticket), else the request's.
        let deployed_env = verdict
            .claims
            .as_ref()
            .and_then(|c| c.state.get("env"))
            .or_else(|| request.pointer("/params/arguments/env"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let tid = verdict.claims.as_ref().map(|c| c.tid.as_str());
        let fresh = tid.is_some_and(|t| t != self.tid);
        let (kind, fact, check) = if *who != self.owner {
            (
                HarmKind::OtherCaller,
                format!(
                    "The ticket was {}'s, and {who}, who confirmed nothing, got the deploy",
                    self.owner
                ),
                Check::Principal,
            )
        } else if deployed_env != self.confirmed_env {
            (
                HarmKind::Unconfirmed,
                format!(
                    "{} confirmed a deploy to {}, not to {deployed_env}",
                    self.owner, self.confirmed_env
                ),
                Check::Signature,
            )
        } else if at_s >= self.deadline_s {
            (
                HarmKind::Late,
                format!(
                    "The ticket {} confirmed on expired at t = {} s, and this deploy came at t = {at_s} s",
                    self.owner, self.deadline_s
                ),
                Check::Expiry,
            )
        } else if self.deploys > 1 {
            (
                HarmKind::Again,
                format!(
                    "{} confirmed one deploy, and this is deploy {} on that one confirmation",
                    self.owner, self.deploys
                ),
                Check::SingleUse,
            )
        } else {
            return None;
        };
        let cause = harm_cause(check, verdict, fresh);
        Some(Harm {
            kind,
            what_went_wrong: format!("{fact}: {cause}"),
        })
    }
}

/// Why the harm got through, for the `check` that should have stopped it: that check off, a
/// fresh ticket minted when the server asked again, a memory that never saw the first
/// redemption, or the checks that were off.
fn harm_cause(check: Check, verdict: &Verdict, fresh: bool) -> String {
    match (check, verdict.status(check)) {
        (Check::SingleUse, Some(Status::Off)) => {
            "single use is off, so nothing remembers the first deploy".to_owned()
        }
        (_, Some(Status::Off)) => format!(
            "B let it through because its {} check is off",
            check.short().to_ascii_lowercase()
        ),
        _ if fresh => "the ticket it carried was a new one, with its own id and deadline, minted when the server asked again".to_owned(),
        (Check::SingleUse, _) => "this replica's memory never saw the first redemption".to_owned(),
        _ => {
            let off: Vec<&str> = verdict
                .outcomes
                .iter()
                .filter(|o| o.status == Status::Off && o.check != Check::SingleUse)
                .map(|o| o.check.id())
                .collect();
            if off.is_empty() {
                "no check stopped it".to_owned()
            } else {
                format!("B let it through with these checks off: {}", off.join(", "))
            }
        }
    }
}

/// What a replica made of one request, as the widgets show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The replica's response (`null` if it sent none).
    pub response: Value,
    /// The checks on the ticket (empty when the request carried none).
    pub verdict: Verdict,
    /// What the request came to.
    pub outcome: RequestOutcome,
    /// What the work done was, when it was harm: never drawn as a success.
    pub harm: Option<Harm>,
    /// The outcome in plain words ([`answer_words`], or the harm done).
    pub answer: String,
    /// The first failed check and its reason, as the server's log has it (never sent).
    pub detail: Option<String>,
}

/// Sends `msg` from `who` to `replica` at `at_s` seconds, one request of `flow`, and reads
/// what came back.
pub fn judge(
    w: &mut World,
    flow: &mut Flow,
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
    let outcome = RequestOutcome::of(&response, &verdict);
    let harm = flow.record(who, at_s, msg, &verdict, &response);
    Judgement {
        answer: match (&outcome, &harm) {
            (RequestOutcome::Completed(text), Some(h)) => {
                format!("{}. {}.", Harm::headline(text), h.what_went_wrong)
            }
            _ => answer_words(&outcome, &verdict, &response, w.knobs.seal),
        },
        detail: verdict
            .first_failure()
            .map(|(c, r)| format!("{} check failed: {r}", c.id())),
        harm,
        outcome,
        response,
        verdict,
    }
}

/// What a client does after its retry is refused: the ticket is spent or spoiled, so it
/// starts the request over.
pub const AFTER_A_REFUSAL: &str = "What a client does next: start over with the same call and no ticket, which brings a fresh question and a fresh ticket. The error is the same whatever failed, so whoever sent a forged or stolen ticket learns nothing from it.";

/// What the server's answer means, in plain words.
pub fn answer_words(
    outcome: &RequestOutcome,
    verdict: &Verdict,
    response: &Value,
    seal: Seal,
) -> String {
    match outcome {
        RequestOutcome::Completed(text) => format!("Accepted: {text}."),
        RequestOutcome::AskedAgain => {
            "Asked again: the retry did not carry an answer of the kind asked, so the server repeats its question."
                .into()
        }
        RequestOutcome::Refused { .. } => match verdict.first_failure() {
            Some((check, why)) => format!(
                "Refused: \u{201c}{}\u{201d} failed ({}).",
                check.question(seal),
                crate::checks::reason(why)
            ),
            None => match classify(response) {
                Answered::Error(e) => format!("Refused: {}.", e.message),
                _ => "No answer.".into(),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bob's ticket, and replica B judging one request on it.
    fn one(knobs: Knobs, who: &Principal, at_s: u64, msg: impl Fn(&Minted) -> Value) -> Judgement {
        let mut m = mint(knobs).unwrap();
        let mut flow = Flow::of(&m.claims);
        let msg = msg(&m);
        judge(&mut m.world, &mut flow, Replica::B, who, at_s, &msg)
    }

    #[test]
    fn the_honest_deploy_is_no_harm() {
        let j = one(Knobs::default(), &bob(), 8, |m| m.retry.clone());
        assert!(j.outcome.completed());
        assert_eq!(j.harm, None);
        assert!(
            j.answer.starts_with("Accepted: deployed to staging"),
            "{}",
            j.answer
        );
        // Refusals and repeated questions are no harm either.
        let j = one(Knobs::default(), &alice(), 8, |m| m.retry.clone());
        assert_eq!((j.outcome.completed(), j.harm), (false, None));
    }

    #[test]
    fn an_edit_accepted_with_the_signature_check_off_is_harm() {
        let mut k = Knobs::default();
        k.policy_b.signature = false;
        let j = one(k, &bob(), 8, |m| {
            with_ticket(&m.retry, &crate::scenario::tamper(&m.ticket).0)
        });
        assert!(j.outcome.completed());
        let h = j.harm.unwrap();
        assert_eq!(h.kind, HarmKind::Unconfirmed);
        assert_eq!(
            h.what_went_wrong,
            "bob confirmed a deploy to staging, not to prod: B let it through because its signature check is off"
        );
        assert!(
            j.answer.starts_with("Harm done: deployed to prod"),
            "{}",
            j.answer
        );
        assert!(!j.answer.contains("Accepted"), "{}", j.answer);
    }

    #[test]
    fn another_callers_deploy_with_the_principal_check_off_is_harm() {
        let mut k = Knobs::default();
        k.policy_b.principal = false;
        let j = one(k, &alice(), 20, |m| m.retry.clone());
        let h = j.harm.unwrap();
        assert_eq!(h.kind, HarmKind::OtherCaller);
        assert!(
            h.what_went_wrong.contains("bob's, and alice"),
            "{}",
            h.what_went_wrong
        );
        assert!(h.what_went_wrong.contains("principal check is off"));
    }

    #[test]
    fn a_late_deploy_with_the_expiry_check_off_is_harm() {
        let mut k = Knobs::default();
        k.policy_b.expiry = false;
        let h = one(k, &bob(), 300, |m| m.retry.clone()).harm.unwrap();
        assert_eq!(h.kind, HarmKind::Late);
        assert!(
            h.what_went_wrong.contains("expired at t = 120 s"),
            "{}",
            h.what_went_wrong
        );
        assert!(h.what_went_wrong.contains("this deploy came at t = 300 s"));
    }

    #[test]
    fn a_second_deploy_on_one_confirmation_is_harm_and_the_first_is_not() {
        let mut m = mint(Knobs::default()).unwrap();
        let mut flow = Flow::of(&m.claims);
        let first = judge(&mut m.world, &mut flow, Replica::B, &bob(), 8, &m.retry);
        let again = with_id(&m.retry, 5);
        let second = judge(&mut m.world, &mut flow, Replica::B, &bob(), 10, &again);
        assert_eq!(first.harm, None);
        let h = second.harm.unwrap();
        assert_eq!(h.kind, HarmKind::Again);
        assert!(h
            .what_went_wrong
            .contains("deploy 2 on that one confirmation"));
        assert!(h.what_went_wrong.contains("single use is off"));
        assert_eq!(flow.deploys, 2);
    }

    #[test]
    fn an_error_with_no_checks_run_is_refused_not_accepted() {
        let empty = Verdict {
            outcomes: vec![],
            claims: None,
        };
        assert!(empty.accepted(), "the core's verdict: nothing failed");
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid params"}});
        assert_eq!(
            RequestOutcome::of(&error, &empty),
            RequestOutcome::Refused {
                check: None,
                code: Some(-32602)
            }
        );
        assert_eq!(
            answer_words(
                &RequestOutcome::of(&error, &empty),
                &empty,
                &error,
                Seal::Signed
            ),
            "Refused: Invalid params."
        );
        let done = json!({"result": {"content": [{"type": "text", "text": "deployed"}]}});
        assert!(RequestOutcome::of(&done, &empty).completed());
        let asked = json!({"result": {"resultType": "input_required"}});
        assert_eq!(
            RequestOutcome::of(&asked, &empty),
            RequestOutcome::AskedAgain
        );
        assert!(!RequestOutcome::of(&Value::Null, &empty).completed());
    }

    #[test]
    fn a_response_the_core_cannot_read_is_refused_never_done() {
        let empty = Verdict {
            outcomes: vec![],
            claims: None,
        };
        let refused = RequestOutcome::Refused {
            check: None,
            code: None,
        };
        for bad in [
            json!({"result": {"resultType": "task", "content": [{"type": "text", "text": "deployed"}]}}),
            json!({"result": {"content": []}, "error": {"code": -32602, "message": "x"}}),
            json!({"error": {"code": "-32602", "message": "x"}}),
            json!("deployed"),
        ] {
            assert_eq!(RequestOutcome::of(&bad, &empty), refused, "{bad}");
        }
    }
}
