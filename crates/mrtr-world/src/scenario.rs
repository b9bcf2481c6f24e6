//! Scenarios: scripts of moves played on a fresh world. Captions are ours; every verdict,
//! ticket and message in them comes from running the core.

use crate::checks::{CheckWords, SealWords};
use mrtr_core::answered::{classify, Answered};
use mrtr_core::checks::Status;
use mrtr_core::ticket::{anatomy, rewrite_payload};
use mrtr_core::{AgreeableHost, Principal, Step as ClientStep};
use serde_json::{json, Value};

use crate::actor::{Actor, Replica};
use crate::knobs::Knobs;
use crate::trace::{MessageKind, Trace};
use crate::world::World;

/// How the two-replica round trip ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The ticket comes back untouched.
    Honest,
    /// The ticket comes back edited (staging → prod).
    Tampered,
}

impl Ending {
    /// A stable name for links: `honest` or `tampered`.
    pub fn id(self) -> &'static str {
        match self {
            Ending::Honest => "honest",
            Ending::Tampered => "tampered",
        }
    }

    /// The ending [`Ending::id`] names `s`; `None` for any other text.
    pub fn from_id(s: &str) -> Option<Ending> {
        match s {
            "honest" => Some(Ending::Honest),
            "tampered" => Some(Ending::Tampered),
            _ => None,
        }
    }
}

/// What a client that edits its ticket does: rewrite the readable payload (staging → prod)
/// and keep the signature; a sealed ticket cannot be read, so it flips one character.
pub fn tamper(ticket: &str) -> (String, String) {
    if let Ok(edited) = rewrite_payload(ticket, |p| p.replace("staging", "prod")) {
        if edited != ticket {
            return (
                edited,
                "changed \"staging\" to \"prod\" in the readable payload, kept the signature"
                    .into(),
            );
        }
    }
    let mid = anatomy(ticket)
        .map(|a| (a.body.start + a.body.end) / 2)
        .unwrap_or(ticket.len() / 2);
    let mut chars: Vec<char> = ticket.chars().collect();
    if let Some(c) = chars.get_mut(mid) {
        *c = if *c == 'A' { 'B' } else { 'A' };
    }
    (
        chars.into_iter().collect(),
        format!("the payload is sealed and unreadable, so changed character {mid} blindly"),
    )
}

fn deploy_params(env: &str) -> Value {
    json!({"name": "deploy", "arguments": {"env": env}})
}

/// What a verdict's checks came to, in a clause: never "every check passed" when one of them
/// was off.
pub fn check_sentence(verdict: &mrtr_core::Verdict) -> String {
    match verdict.first_failure() {
        None => {
            let off: Vec<String> = verdict
                .outcomes
                .iter()
                .filter(|o| {
                    o.status == Status::Off && o.check != mrtr_core::checks::Check::SingleUse
                })
                .map(|o| o.check.short().to_ascii_lowercase())
                .collect();
            match off.as_slice() {
                [] => "every check passed".to_owned(),
                [one] => format!("no check refused it, because its {one} check is off"),
                [rest @ .., last] => format!(
                    "no check refused it, because its {} and {last} checks are off",
                    rest.join(", ")
                ),
            }
        }
        Some((check, reason)) => format!(
            "the {} check failed ({})",
            check.short().to_ascii_lowercase(),
            crate::checks::reason(reason)
        ),
    }
}

/// The lesson's six steps: the call lands on A, A asks and forgets, the host asks the user,
/// the client retries, the balancer picks B, B checks the ticket and finishes (or refuses).
pub fn round_trip(knobs: Knobs, ending: Ending) -> Trace {
    let mut w = World::new(knobs);
    let bob = Principal::user("bob");
    w.bearer(format!("{bob}-token"));
    let (mut call, first) = w.client.begin("tools/call", deploy_params("staging"));
    let Some((asked, flow)) = a_asks(&mut w, knobs, &bob, first) else {
        return w.finish();
    };
    let Some(retry) = the_user_answers(&mut w, &mut call, &asked, ending) else {
        return w.finish();
    };
    b_finishes(w, &bob, retry, flow)
}

/// Steps 1 and 2: the call lands on A, which asks and seals its work into a ticket (its
/// answer, and the flow bob is about to confirm); nothing when A refuses instead.
fn a_asks(
    w: &mut World,
    knobs: Knobs,
    bob: &Principal,
    first: Value,
) -> Option<(Value, Option<crate::setup::Flow>)> {
    w.send(
        Actor::Client,
        Actor::Balancer,
        MessageKind::Call,
        first.clone(),
    );
    w.route(Replica::A, "round robin: A is next");
    w.send(
        Actor::Balancer,
        Actor::ReplicaA,
        MessageKind::Call,
        first.clone(),
    );
    w.step(
        "1. The call lands on replica A",
        "bob's client calls deploy with env \"staging\". The load balancer happens to send it to replica A.",
        Actor::Balancer,
    );
    let reply = w.serve(Replica::A, bob, &first);
    let resp = reply.response.clone()?;
    let flow = reply.minted().map(|(_, c)| crate::setup::Flow::of(c));
    let asked = matches!(classify(&resp), Answered::InputRequired(_));
    let kind = if asked {
        MessageKind::InputRequired
    } else {
        MessageKind::Error
    };
    answer_through_balancer(w, Actor::ReplicaA, kind, &resp);
    w.forgot(Replica::A);
    if !asked {
        w.step(
            "2. Replica A refuses the call",
            "Replica A answered with an error instead of a question.",
            Actor::ReplicaA,
        );
        return None;
    }
    let seal = knobs.seal;
    w.step(
        format!("2. A asks, {} its work into a ticket, and forgets", seal.verb()),
        format!("A wants a yes before deploying. It cannot pause to ask, so it answers input_required now: its question sits under inputRequests, and its progress so far is {} into the requestState ticket: deploy to staging, for bob, and the release it looked up (the newest build), which the retry will not send again. A retains nothing afterwards.", seal.done()),
        Actor::ReplicaA,
    );
    Some((resp, flow))
}

/// A replica's answer, back through the balancer to the client.
fn answer_through_balancer(w: &mut World, replica: Actor, kind: MessageKind, resp: &Value) {
    w.send(replica, Actor::Balancer, kind, resp.clone());
    w.send(Actor::Balancer, Actor::Client, kind, resp.clone());
}

/// Steps 3 and 4: the host asks bob, he confirms, and the client repeats the call with his
/// answer and the ticket (edited on the way, in the tampered ending); the retry as sent.
fn the_user_answers(
    w: &mut World,
    call: &mut mrtr_core::client::PendingCall,
    asked: &Value,
    ending: Ending,
) -> Option<Value> {
    let question = asked
        .pointer("/result/inputRequests")
        .cloned()
        .unwrap_or(Value::Null);
    w.send(Actor::Client, Actor::Host, MessageKind::Question, question);
    w.set_time(8);
    let mut host = AgreeableHost::with(json!({"confirm": true}));
    let ClientStep::Retry(mut retry) = w.client.on_response(call, asked, &mut host) else {
        return None;
    };
    let answers = retry
        .pointer("/params/inputResponses")
        .cloned()
        .unwrap_or(Value::Null);
    w.send(Actor::Host, Actor::Client, MessageKind::Answer, answers);
    w.step(
        "3. The host asks the user",
        "The host shows bob the question, and he confirms 8 seconds later. It can ask only because the client declared the elicitation capability in its request.",
        Actor::Host,
    );
    if ending == Ending::Tampered {
        let ticket = retry
            .pointer("/params/requestState")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let (edited, what) = tamper(&ticket);
        w.edited(Actor::Client, &ticket, &edited, what);
        retry["params"]["requestState"] = json!(edited);
    }
    w.send(
        Actor::Client,
        Actor::Balancer,
        MessageKind::Retry,
        retry.clone(),
    );
    w.step(
        "4. The client repeats the call",
        match ending {
            Ending::Honest => "Unchanged method and arguments, a fresh id, bob's reply under inputResponses, and the ticket returned exactly as received.",
            Ending::Tampered => "Same method and arguments and a new id, but this time the ticket was edited on the way back: staging became prod.",
        },
        Actor::Client,
    );
    Some(retry)
}

/// Steps 5 and 6: the balancer picks B, which checks the ticket and finishes, refuses, or
/// (with a check off) does harm; the world's trace, with the harm it did.
fn b_finishes(
    mut w: World,
    bob: &Principal,
    retry: Value,
    mut flow: Option<crate::setup::Flow>,
) -> Trace {
    w.route(Replica::B, "round robin: B is next");
    w.send(
        Actor::Balancer,
        Actor::ReplicaB,
        MessageKind::Retry,
        retry.clone(),
    );
    w.step(
        "5. The balancer picks replica B",
        "This deploy is new to B; all it needs travels in the request.",
        Actor::Balancer,
    );
    let reply = w.serve(Replica::B, bob, &retry);
    let resp = reply.response.clone().unwrap_or(Value::Null);
    let kind = if reply.error().is_some() {
        MessageKind::Error
    } else {
        MessageKind::Complete
    };
    answer_through_balancer(&mut w, Actor::ReplicaB, kind, &resp);
    w.forgot(Replica::B);
    let harm = match (&mut flow, reply.verdict()) {
        (Some(f), Some(v)) => f.record(bob, w.now_s(), &retry, v, &resp),
        _ => None,
    };
    let (title, caption) = b_words(&reply, harm.as_ref());
    w.step(title, caption, Actor::ReplicaB);
    let mut t = w.finish();
    t.harm = harm;
    t
}

/// Step 6's title and caption, from B's reply: what its checks came to, and what it did.
fn b_words(reply: &mrtr_core::Reply, harm: Option<&crate::tone::Harm>) -> (String, String) {
    match (reply.verdict(), reply.error()) {
        (Some(v), None) => (
            match harm {
                None => "6. B checks the ticket and finishes".to_owned(),
                Some(_) => "6. B checks the ticket and does harm".to_owned(),
            },
            format!(
                "B checks the ticket: {}. It takes the pending work from the ticket and answers \"{}\".{} Neither replica stored a thing between the two calls.",
                check_sentence(v),
                reply.result().and_then(|r| r.pointer("/content/0/text")).and_then(Value::as_str).unwrap_or(""),
                harm.map(|h| format!(" {}.", crate::tone::Harm::headline(&h.what_went_wrong))).unwrap_or_default()
            ),
        ),
        (Some(v), Some(e)) => (
            format!("6. B refuses at the {} check", v.first_failure().map(|(c, _)| c.id()).unwrap_or("first")),
            format!(
                "B checks the ticket: {}. The client only sees the uniform error {} \"{}\"; the reason stays in B's log. {}",
                check_sentence(v),
                e.code,
                e.message,
                crate::setup::AFTER_A_REFUSAL
            ),
        ),
        (None, _) => ("6. B answers".to_owned(), "B answered without checking a ticket.".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::symbols;
    use crate::trace::EventKind;
    use mrtr_core::ticket::Seal;

    #[test]
    fn the_ticket_carries_work_the_retry_does_not_send() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let release = mrtr_core::fixtures::LATEST_RELEASE;
        // A looked the release up; the ticket B checks carries it...
        let claims = t.verdict().unwrap().claims.as_ref().unwrap();
        assert_eq!(claims.state["release"], release);
        // ...while the retry's arguments say only where to deploy...
        let retries: Vec<Value> = t
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Sent { json, .. } if json.pointer("/params/requestState").is_some() => {
                    Some(json.clone())
                }
                _ => None,
            })
            .collect();
        assert!(!retries.is_empty());
        for r in retries {
            assert_eq!(r["params"]["arguments"], json!({"env": "staging"}));
        }
        // ...and B deploys the release bob confirmed.
        assert_eq!(
            t.outcome(),
            Some(Ok(
                format!("deployed to staging, release {release}").as_str()
            ))
        );
    }

    #[test]
    fn the_servers_phase_is_read_off_each_steps_events() {
        use crate::trace::ServerPhase::*;
        let phases = |t: &Trace| {
            (0..t.steps.len())
                .map(|s| t.server_phase(s))
                .collect::<Vec<_>>()
        };
        let honest = round_trip(Knobs::default(), Ending::Honest);
        assert_eq!(phases(&honest), [FirstCall, Asked, Away, Away, Away, Retry]);
        assert_eq!(honest.server_phase(99), Retry);
        let tampered = round_trip(Knobs::default(), Ending::Tampered);
        assert_eq!(
            phases(&tampered),
            [FirstCall, Asked, Away, Away, Away, Refused]
        );
        // With the signature check off, the edited ticket is not refused: B finishes.
        let mut k = Knobs::default();
        k.policy_b.signature = false;
        assert_eq!(round_trip(k, Ending::Tampered).server_phase(5), Retry);
        // A refusal of the first call is a refusal, whatever the step's number.
        let mut w = World::new(Knobs::default());
        let bob = Principal::user("bob");
        let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "deploy"}});
        w.send(
            Actor::Balancer,
            Actor::ReplicaA,
            MessageKind::Call,
            bad.clone(),
        );
        w.serve(Replica::A, &bob, &bad);
        w.step("1", "", Actor::ReplicaA);
        assert_eq!(phases(&w.finish()), [Refused]);
    }

    #[test]
    fn the_honest_round_trip_has_six_steps_and_deploys() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        assert_eq!(t.steps.len(), 6);
        assert_eq!(
            t.outcome(),
            Some(Ok("deployed to staging, release 2026.11.30-2"))
        );
        assert_eq!(symbols(t.verdict().unwrap()), "✓✓✓✓✓");
        // B checks in the last step; before it, there is no verdict to show.
        assert_eq!(t.verdict_by(5), t.verdict());
        assert!(t.verdict_by(4).is_none() && t.verdict_by(99).is_none());
        let routes: Vec<Actor> = t
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Routed { to, .. } => Some(*to),
                _ => None,
            })
            .collect();
        assert_eq!(routes, [Actor::ReplicaA, Actor::ReplicaB]);
        let minted_by: Vec<Actor> = t
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::TicketMinted { by, .. } => Some(*by),
                _ => None,
            })
            .collect();
        assert_eq!(minted_by, [Actor::ReplicaA]);
        let checked_by: Vec<Actor> = t
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Checked { by, .. } => Some(*by),
                _ => None,
            })
            .collect();
        assert_eq!(checked_by, [Actor::ReplicaB]);
    }

    #[test]
    fn the_retry_is_the_call_with_a_new_id_the_answer_and_the_same_ticket() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let msgs = t.messages_until(t.steps.len() - 1);
        let call = match &msgs[0].1.kind {
            EventKind::Sent { json, .. } => json.clone(),
            _ => unreachable!(),
        };
        let retry = msgs
            .iter()
            .find_map(|(_, e)| match &e.kind {
                EventKind::Sent {
                    kind: MessageKind::Retry,
                    json,
                    ..
                } => Some(json.clone()),
                _ => None,
            })
            .unwrap();
        assert_ne!(call["id"], retry["id"]);
        assert_eq!(retry["params"]["requestState"].as_str(), t.minted_ticket());
        let mut stripped = retry.clone();
        let p = stripped["params"].as_object_mut().unwrap();
        p.shift_remove("inputResponses");
        p.shift_remove("requestState");
        stripped["id"] = call["id"].clone();
        assert_eq!(stripped, call);
    }

    #[test]
    fn the_tampered_ending_is_refused_at_the_signature() {
        let t = round_trip(Knobs::default(), Ending::Tampered);
        assert_eq!(symbols(t.verdict().unwrap()), "✗––––");
        assert!(t.outcome().unwrap().unwrap_err().is_invalid_request_state());
        assert!(t.steps[5].title.contains("signature"));
        let sealed = round_trip(
            Knobs {
                seal: Seal::Sealed,
                ..Knobs::default()
            },
            Ending::Tampered,
        );
        assert_eq!(symbols(sealed.verdict().unwrap()), "✗––––");
    }

    #[test]
    fn without_the_signature_check_the_edit_deploys_to_prod() {
        let mut knobs = Knobs::default();
        knobs.policy_b.signature = false;
        let t = round_trip(knobs, Ending::Tampered);
        assert_eq!(
            t.outcome(),
            Some(Ok("deployed to prod, release 2026.11.30-2"))
        );
        // Harm, not a success: bob confirmed staging.
        let harm = t.harm.as_ref().unwrap();
        assert_eq!(harm.kind, crate::setup::HarmKind::Unconfirmed);
        assert_eq!(t.steps[5].title, "6. B checks the ticket and does harm");
        assert!(t.steps[5]
            .caption
            .contains("Harm done: bob confirmed a deploy to staging, not to prod"));
        assert_eq!(round_trip(Knobs::default(), Ending::Honest).harm, None);
        // The caption says the check was off, never that every check passed.
        let last = &t.steps[5].caption;
        assert!(!last.contains("every check passed"), "{last}");
        assert!(
            last.contains("no check refused it, because its signature check is off"),
            "{last}"
        );
    }

    #[test]
    fn a_signed_ticket_is_signed_and_only_a_sealed_one_is_sealed() {
        let signed = round_trip(Knobs::default(), Ending::Honest);
        for s in &signed.steps {
            let text = format!("{} {}", s.title, s.caption).to_lowercase();
            assert!(!text.contains("seal"), "{text}");
        }
        assert_eq!(
            signed.steps[1].title,
            "2. A asks, signs its work into a ticket, and forgets"
        );
        let sealed = round_trip(
            Knobs {
                seal: Seal::Sealed,
                ..Knobs::default()
            },
            Ending::Honest,
        );
        assert_eq!(
            sealed.steps[1].title,
            "2. A asks, seals its work into a ticket, and forgets"
        );
        assert!(sealed.steps[1]
            .caption
            .contains("sealed into the requestState ticket"));
    }

    #[test]
    fn replica_b_with_another_key_refuses_an_honest_ticket() {
        let t = round_trip(
            Knobs {
                b_key_differs: true,
                ..Knobs::default()
            },
            Ending::Honest,
        );
        assert_eq!(symbols(t.verdict().unwrap()), "✗––––");
    }

    #[test]
    fn the_same_knobs_give_the_same_trace() {
        assert_eq!(
            round_trip(Knobs::default(), Ending::Honest),
            round_trip(Knobs::default(), Ending::Honest)
        );
        let other = round_trip(
            Knobs {
                seed: 7,
                ..Knobs::default()
            },
            Ending::Honest,
        );
        assert_ne!(
            other.minted_ticket(),
            round_trip(Knobs::default(), Ending::Honest).minted_ticket()
        );
    }
}
