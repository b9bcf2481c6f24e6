//! What the round trip's diagram shows at one moment, computed from the trace and the player:
//! which actor has the focus, which lines carry a message, where the message in flight is.
//! Pure: tested natively; the view only writes it into the SVG.

use super::checks_view::{check_rows, CheckRow};
use crate::geometry::{in_flight, Layout};
use mrtr_core::answered::{classify, Answered};
use mrtr_world::{Actor, EventKind, MessageKind, Trace};

use super::playback::Playback;

/// The diagram's edges, each a pair of actors a message can travel between.
pub const EDGES: [(Actor, Actor); 4] = [
    (Actor::Host, Actor::Client),
    (Actor::Client, Actor::Balancer),
    (Actor::Balancer, Actor::ReplicaA),
    (Actor::Balancer, Actor::ReplicaB),
];

/// The label of a message in flight, read off the message itself.
pub fn message_label(k: MessageKind, json: &serde_json::Value) -> String {
    match k {
        MessageKind::Call => json
            .get("method")
            .and_then(|m| m.as_str())
            .unwrap_or("call")
            .to_owned(),
        MessageKind::InputRequired => "input_required + ticket".into(),
        MessageKind::Question => "question".into(),
        MessageKind::Answer => "answer".into(),
        MessageKind::Retry => "retry + answer + ticket".into(),
        // The answers, read by the core's one classifier.
        MessageKind::Complete => match classify(json) {
            Answered::InputRequired(_) => "input_required".into(),
            _ => "complete".into(),
        },
        MessageKind::Error => match classify(json).code() {
            Some(code) => format!("error {code}"),
            None => "error".into(),
        },
    }
}

/// The CSS classes of a message of kind `k` on the diagram.
pub fn kind_class(k: MessageKind) -> &'static str {
    match k {
        MessageKind::Call | MessageKind::Retry => "msg request",
        MessageKind::InputRequired | MessageKind::Question | MessageKind::Answer => "msg ask",
        MessageKind::Complete => "msg ok",
        MessageKind::Error => "msg bad",
    }
}

/// What the diagram shows at one moment: computed from the trace and the player.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The actor the step is about.
    pub focus: Actor,
    /// The edges the step's messages travel.
    pub active_edges: Vec<(Actor, Actor)>,
    /// The message drawn, if any: its position (x, y), its kind and its label.
    pub message: Option<(f64, f64, MessageKind, String)>,
    /// The replicas that have forgotten the call by now.
    pub forgot: Vec<Actor>,
    /// True when the client holds the ticket (from the answer that brings it to the retry).
    pub holds_ticket: bool,
    /// The ticket as a token on the diagram: where it is, and what anyone holding it reads.
    pub ticket: Option<TicketChip>,
    /// Replica B's checks, lit one after the other at the step where it judges the ticket.
    pub checks: Vec<CheckRow>,
    /// Replica A works on bob's call (it holds it only until it answers).
    pub a_working: bool,
    /// The question as the host shows it to the user (its text, and its button), at the step
    /// where the host asks.
    pub prompt: Option<(String, String)>,
    /// The story ends in work the user never confirmed: its result is drawn as harm.
    pub harm: bool,
}

/// The ticket drawn as a token, with its readable face.
#[derive(Clone, Debug, PartialEq)]
pub struct TicketChip {
    /// Where the token is drawn; `None` once a replica has judged it.
    pub at: Option<(f64, f64)>,
    /// What its payload says, as anyone holding it can read it ("sealed" when it is not
    /// readable).
    pub face: String,
    /// The field changed on the way back, when it was.
    pub edited: Option<String>,
}

impl Frame {
    /// Whether the line between `a` and `b` carries one of this step's messages.
    pub fn edge_on(&self, a: Actor, b: Actor) -> bool {
        self.active_edges
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    }

    /// The class of a message drawn in flight: a result that is harm is never drawn as a
    /// success.
    pub fn message_class(&self, k: MessageKind) -> &'static str {
        match k {
            MessageKind::Complete if self.harm => "msg harm",
            _ => kind_class(k),
        }
    }

    /// The note under an actor: what it holds or has forgotten.
    /// The line under an actor: a replica's memory, or what the client holds.
    pub fn note(&self, a: Actor) -> &'static str {
        match a {
            Actor::ReplicaA if self.a_working => "memory: bob's call",
            Actor::ReplicaA | Actor::ReplicaB => "memory: empty",
            Actor::Client if self.holds_ticket => "holds the ticket",
            _ => "",
        }
    }
}

/// What anyone holding a ticket reads on it, times in seconds after `iat` (the minting).
pub fn face(ticket: &str, iat: u64) -> String {
    match mrtr_core::ticket::read_unverified(ticket) {
        Ok(c) => format!(
            "sub {} · env {} · exp t+{} s",
            c.sub.as_deref().unwrap_or("none"),
            c.state.get("env").and_then(|e| e.as_str()).unwrap_or("?"),
            c.exp.saturating_sub(iat)
        ),
        Err(_) if ticket.starts_with(mrtr_core::ticket::SEALED_PREFIX) => {
            "sealed: only the key opens it".to_owned()
        }
        Err(_) => "unreadable: not a ticket's payload".to_owned(),
    }
}

/// The first elicitation among `inputRequests`, as a host draws it: its message, and the
/// title of the field it asks for as the button.
fn host_prompt(requests: &serde_json::Value) -> Option<(String, String)> {
    let params = requests
        .as_object()?
        .values()
        .find_map(|r| r.get("params"))?;
    let message = params.get("message")?.as_str()?.to_owned();
    let button = params
        .pointer("/requestedSchema/properties")
        .and_then(|p| p.as_object())
        .and_then(|p| p.values().find_map(|f| f.get("title")?.as_str()))
        .unwrap_or("OK")
        .to_owned();
    Some((message, button))
}

/// The diagram at the player's moment `p` of trace `t`, in `layout` (with `reduced_motion`, nothing moves: each message is drawn at rest).
pub fn frame(t: &Trace, p: &Playback, reduced_motion: bool, layout: Layout) -> Frame {
    let Some(step) = t.steps.get(p.step) else {
        return Frame {
            focus: Actor::Client,
            active_edges: vec![],
            message: None,
            forgot: vec![],
            holds_ticket: false,
            ticket: None,
            checks: vec![],
            a_working: false,
            prompt: None,
            harm: false,
        };
    };
    let events = &t.events[step.events.clone()];
    let animate = p.playing && !reduced_motion;
    let moving = if animate {
        in_flight(events, p.progress)
    } else {
        None
    };
    let seen = &t.events[..step.events.end];
    let forgot: Vec<Actor> = seen
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Forgot { replica } => Some(*replica),
            _ => None,
        })
        .collect();
    let prompt = events.iter().find_map(|e| match &e.kind {
        EventKind::Sent {
            kind: MessageKind::Question,
            json,
            ..
        } => host_prompt(json),
        _ => None,
    });
    // At rest on the host's step, the prompt it draws stands for the message.
    let message = if prompt.is_some() && moving.is_none() {
        None
    } else {
        message_at(events, moving, layout)
    };
    let ticket = ticket_chip(t, step, moving, layout);
    // The client holds it between calls: from the answer that brings it to the retry.
    let holds_ticket = ticket
        .as_ref()
        .is_some_and(|c| c.at == Some(layout.held_at(Actor::Client)));
    Frame {
        focus: step.focus,
        active_edges: sent(events).map(|(from, to, ..)| (from, to)).collect(),
        ticket,
        message,
        checks: lit_checks(events, t.seal, animate.then_some(p.progress)),
        a_working: a_working(seen, &forgot),
        forgot,
        holds_ticket,
        prompt,
        harm: t.harm.is_some(),
    }
}

/// The messages among `events`: from, to, kind and body.
fn sent(
    events: &[mrtr_world::Event],
) -> impl Iterator<Item = (Actor, Actor, MessageKind, &serde_json::Value)> {
    events.iter().filter_map(|e| match &e.kind {
        EventKind::Sent {
            from,
            to,
            kind,
            json,
        } => Some((*from, *to, *kind, json)),
        _ => None,
    })
}

/// The step's message where it is drawn: on its way when one `moving`, else the step's last
/// at its receiver.
fn message_at(
    events: &[mrtr_world::Event],
    moving: Option<(usize, f64)>,
    layout: Layout,
) -> Option<(f64, f64, MessageKind, String)> {
    match moving {
        Some((i, local)) => {
            let (from, to, kind, json) = sent(&events[i..=i]).next()?;
            let (x, y) = layout.message_point(from, to, local);
            Some((x, y, kind, message_label(kind, json)))
        }
        None => sent(events).last().map(|(_, to, kind, json)| {
            let (x, y) = layout.position(to);
            (x, y, kind, message_label(kind, json))
        }),
    }
}

/// Replica B's checks, lit in order across the step (all at once when still: no `progress`).
fn lit_checks(
    events: &[mrtr_world::Event],
    seal: mrtr_core::ticket::Seal,
    progress: Option<f64>,
) -> Vec<CheckRow> {
    let Some(all) = events.iter().find_map(|e| match &e.kind {
        EventKind::Checked {
            by: Actor::ReplicaB,
            verdict,
            ..
        } => Some(check_rows(verdict, seal)),
        _ => None,
    }) else {
        return vec![];
    };
    let lit = match progress {
        Some(p) => ((p * 2.0 * all.len() as f64).ceil() as usize).min(all.len()),
        None => all.len(),
    };
    all.into_iter().take(lit).collect()
}

/// A holds bob's call from the moment it arrives until it answers and forgets.
fn a_working(seen: &[mrtr_world::Event], forgot: &[Actor]) -> bool {
    !forgot.contains(&Actor::ReplicaA)
        && seen.iter().any(|e| {
            matches!(
                e.kind,
                EventKind::Sent {
                    to: Actor::ReplicaA,
                    kind: MessageKind::Call,
                    ..
                }
            )
        })
}

/// Where the ticket is and what it says, as far as the story has gone: riding with the
/// message that carries it, else in the hand of whoever received it last.
fn ticket_chip(
    t: &Trace,
    step: &mrtr_world::StoryStep,
    moving: Option<(usize, f64)>,
    layout: Layout,
) -> Option<TicketChip> {
    // While a message moves, only what happened before it counts.
    let upto = moving.map_or(step.events.end, |(i, _)| step.events.start + i);
    let so_far = &t.events[..upto];
    let (ticket, claims) = so_far.iter().find_map(|e| match &e.kind {
        EventKind::TicketMinted { ticket, claims, .. } => Some((ticket, claims)),
        _ => None,
    })?;
    let edited = so_far.iter().find_map(|e| match &e.kind {
        EventKind::Edited { after, .. } => Some(after),
        _ => None,
    });
    let carries = |k: MessageKind| matches!(k, MessageKind::InputRequired | MessageKind::Retry);
    // Riding: beside the message it travels with.
    let beside = |(x, y): (f64, f64)| (x + 44.0, y - 34.0);
    let riding = moving.and_then(|(i, local)| match &t.events[step.events.start + i].kind {
        EventKind::Sent { from, to, kind, .. } if carries(*kind) => {
            Some(beside(layout.message_point(*from, *to, local)))
        }
        _ => None,
    });
    // Still: in the client's hand between calls; elsewhere where its message arrived, until
    // a replica judges it (then B's checks stand for it).
    let holder = so_far.iter().rev().find_map(|e| match &e.kind {
        EventKind::Sent { to, kind, .. } if carries(*kind) => Some(*to),
        _ => None,
    });
    let judged = so_far
        .iter()
        .any(|e| matches!(e.kind, EventKind::Checked { .. }));
    let at = riding.or(match holder {
        Some(Actor::Client) => Some(layout.held_at(Actor::Client)),
        Some(a) if !judged => Some(beside(layout.position(a))),
        _ => None,
    });
    let shown = edited.map(String::as_str).unwrap_or(ticket);
    let face = face(shown, claims.iat);
    let edited = edited.and_then(|after| {
        let c = mrtr_core::ticket::read_unverified(after).ok()?;
        Some(format!("env {}", c.state.get("env")?.as_str()?))
    });
    Some(TicketChip { at, face, edited })
}

thread_local! {
    /// The last trace made, by its knobs and ending.
    static LAST_TRACE: std::cell::RefCell<Option<((mrtr_world::Knobs, mrtr_world::Ending), Trace)>> =
        const { std::cell::RefCell::new(None) };
}

/// The round trip's trace, made once per knobs and ending: the page makes the first one in a
/// task of its own before the widget mounts, so neither task is long.
pub fn trace_of(knobs: mrtr_world::Knobs, ending: mrtr_world::Ending) -> Trace {
    LAST_TRACE.with(|c| {
        let mut c = c.borrow_mut();
        match &*c {
            Some((key, t)) if *key == (knobs, ending) => t.clone(),
            _ => {
                let t = mrtr_world::round_trip(knobs, ending);
                *c = Some(((knobs, ending), t.clone()));
                t
            }
        }
    })
}

/// SVG user units as whole numbers: a unit is under a pixel here, and integers keep the float
/// formatter out of the wasm.
pub fn px(v: f64) -> i32 {
    v.round() as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_world::{round_trip, Ending, Knobs};

    #[test]
    fn answers_are_labelled_as_the_core_reads_them() {
        use serde_json::json;
        let refused = json!({"id": 3, "error": {"code": -32602, "message": "Invalid"}});
        assert_eq!(message_label(MessageKind::Error, &refused), "error -32602");
        // A code that is no integer is no code: the label does not repeat it.
        let odd = json!({"id": 3, "error": {"code": "-32602", "message": "Invalid"}});
        assert_eq!(message_label(MessageKind::Error, &odd), "error");
        let done = json!({"id": 3, "result": {"content": []}});
        assert_eq!(message_label(MessageKind::Complete, &done), "complete");
    }

    #[test]
    fn a_harmful_result_is_not_drawn_as_a_success() {
        let mut k = Knobs::default();
        k.policy_b.signature = false;
        let t = round_trip(k, Ending::Tampered);
        let last = t.steps.len() - 1;
        let f = frame(
            &t,
            &Playback::at(last, t.steps.len(), 0.9),
            false,
            Layout::Wide,
        );
        assert!(f.harm);
        assert_eq!(f.message_class(MessageKind::Complete), "msg harm");
        let honest = round_trip(Knobs::default(), Ending::Honest);
        let f = frame(
            &honest,
            &Playback::at(last, honest.steps.len(), 0.9),
            false,
            Layout::Wide,
        );
        assert_eq!(f.message_class(MessageKind::Complete), "msg ok");
    }

    #[test]
    fn frames_follow_the_story() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let settled = |step| {
            frame(
                &t,
                &Playback::at(step, t.steps.len(), 1.0),
                false,
                Layout::Wide,
            )
        };
        let position = |a| Layout::Wide.position(a);
        assert_eq!(settled(0).focus, Actor::Balancer);
        assert!(settled(0).forgot.is_empty());
        assert_eq!(settled(1).forgot, vec![Actor::ReplicaA]);
        assert!(settled(1).holds_ticket && !settled(0).holds_ticket);
        assert_eq!(settled(0).note(Actor::ReplicaA), "memory: bob's call");
        assert_eq!(settled(1).note(Actor::ReplicaA), "memory: empty");
        assert_eq!(settled(1).note(Actor::ReplicaB), "memory: empty");
        assert_eq!(settled(1).note(Actor::Client), "holds the ticket");
        assert!(
            settled(0).edge_on(Actor::Balancer, Actor::Client)
                || settled(0).edge_on(Actor::Client, Actor::Balancer)
        );
        assert_eq!(settled(5).message.unwrap().2, MessageKind::Complete);
        // The refusal is labelled with the code the server actually sent.
        let tampered = round_trip(Knobs::default(), Ending::Tampered);
        let last = frame(
            &tampered,
            &Playback::at(5, tampered.steps.len(), 1.0),
            false,
            Layout::Wide,
        );
        assert_eq!(last.message.unwrap().3, "error -32602");
        let moving = Playback {
            playing: true,
            progress: 0.1,
            ..Playback::at(0, t.steps.len(), 1.0)
        };
        let (x, _, kind, label) = frame(&t, &moving, false, Layout::Wide).message.unwrap();
        assert_eq!(label, "tools/call");
        assert_eq!(kind, MessageKind::Call);
        assert!(x > position(Actor::Client).0 && x < position(Actor::Balancer).0);
        // Reduced motion: nothing moves, the message is shown where it arrives.
        let (x, _, _, _) = frame(&t, &moving, true, Layout::Wide).message.unwrap();
        assert_eq!(x, position(Actor::ReplicaA).0);
    }

    #[test]
    fn the_ticket_travels_and_b_judges_it_on_the_diagram() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let at = |t: &Trace, step, progress: Option<f64>| {
            let p = Playback {
                playing: progress.is_some(),
                progress: progress.unwrap_or(1.0),
                ..Playback::at(step, t.steps.len(), 1.0)
            };
            frame(t, &p, false, Layout::Wide)
        };
        assert_eq!(at(&t, 0, None).ticket, None, "no ticket before A mints it");
        let held = at(&t, 1, None).ticket.unwrap();
        assert_eq!(held.at, Some(Layout::Wide.held_at(Actor::Client)));
        assert_eq!(held.face, "sub bob · env staging · exp t+120 s");
        assert_eq!(held.edited, None);
        // Riding with the retry, between the client and the balancer.
        let (x, _) = at(&t, 3, Some(0.3)).ticket.unwrap().at.unwrap();
        assert!(x > Layout::Wide.position(Actor::Client).0);
        assert!(x < Layout::Wide.position(Actor::Balancer).0 + 44.0);
        // Arrived at B, then judged: the checks stand for it, lit one after another.
        assert!(at(&t, 4, None).ticket.unwrap().at.is_some());
        assert!(at(&t, 4, None).checks.is_empty());
        let judged = at(&t, 5, None);
        assert_eq!(judged.ticket.as_ref().unwrap().at, None);
        let symbols = |f: &Frame| f.checks.iter().map(|c| c.symbol).collect::<String>();
        assert_eq!(symbols(&judged), "✓✓✓✓✓");
        let lit = at(&t, 5, Some(0.2)).checks.len();
        assert!(lit > 0 && lit < 5, "{lit} checks lit a fifth of the way in");
        // Tampered: the edited field is on the ticket, and the signature check fails first.
        let t = round_trip(Knobs::default(), Ending::Tampered);
        let edited = at(&t, 3, None).ticket.unwrap();
        assert_eq!(edited.edited.as_deref(), Some("env prod"));
        assert!(edited.face.contains("env prod"));
        assert_eq!(at(&t, 2, None).ticket.unwrap().edited, None);
        assert_eq!(symbols(&at(&t, 5, None)), "✗––––");
    }

    #[test]
    fn the_host_shows_the_question_at_its_step_only() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let prompts: Vec<Option<(String, String)>> = (0..t.steps.len())
            .map(|s| {
                frame(
                    &t,
                    &Playback::at(s, t.steps.len(), 1.0),
                    false,
                    Layout::Tall,
                )
                .prompt
            })
            .collect();
        let asked = (
            "Deploy release 2026.11.30-2 to staging?".to_owned(),
            "Confirm".to_owned(),
        );
        assert_eq!(prompts[2], Some(asked));
        assert_eq!(prompts.iter().flatten().count(), 1);
    }
}
