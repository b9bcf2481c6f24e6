//! What the round trip's diagram shows at one moment, computed from the trace and the player:
//! which actor has the focus, which lines carry a message, where the message in flight is.
//! Pure: tested natively; the view only writes it into the SVG.

use mrtr_world::geometry::{in_flight, Layout};
use mrtr_world::{Actor, EventKind, MessageKind, Trace};

use super::playback::Playback;

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
        MessageKind::Complete => json
            .pointer("/result/resultType")
            .and_then(|r| r.as_str())
            .unwrap_or("complete")
            .to_owned(),
        MessageKind::Error => match json.pointer("/error/code") {
            Some(code) => format!("error {code}"),
            None => "error".into(),
        },
    }
}

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
    pub focus: Actor,
    pub active_edges: Vec<(Actor, Actor)>,
    pub message: Option<(f64, f64, MessageKind, String)>,
    pub forgot: Vec<Actor>,
    pub holds_ticket: bool,
}

impl Frame {
    /// Whether the line between `a` and `b` carries one of this step's messages.
    pub fn edge_on(&self, a: Actor, b: Actor) -> bool {
        self.active_edges
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    }

    /// The note under an actor: what it holds or has forgotten.
    pub fn note(&self, a: Actor) -> &'static str {
        if a.is_replica() && self.forgot.contains(&a) {
            "remembers nothing"
        } else if a == Actor::Client && self.holds_ticket {
            "holds the ticket"
        } else {
            ""
        }
    }
}

pub fn frame(t: &Trace, p: &Playback, reduced_motion: bool, layout: Layout) -> Frame {
    let Some(step) = t.steps.get(p.step) else {
        return Frame {
            focus: Actor::Client,
            active_edges: vec![],
            message: None,
            forgot: vec![],
            holds_ticket: false,
        };
    };
    let events = &t.events[step.events.clone()];
    let mut active_edges = Vec::new();
    let mut last = None;
    for e in events {
        if let EventKind::Sent {
            from,
            to,
            kind,
            json,
        } = &e.kind
        {
            active_edges.push((*from, *to));
            last = Some((*from, *to, *kind, message_label(*kind, json)));
        }
    }
    let moving = if p.playing && !reduced_motion {
        in_flight(events, p.progress)
    } else {
        None
    };
    let message = match moving {
        Some((i, local)) => match &events[i].kind {
            EventKind::Sent {
                from,
                to,
                kind,
                json,
            } => {
                let (x, y) = layout.message_point(*from, *to, local);
                Some((x, y, *kind, message_label(*kind, json)))
            }
            _ => None,
        },
        None => last.map(|(_, to, kind, label)| {
            let (x, y) = layout.position(to);
            (x, y, kind, label)
        }),
    };
    let seen = &t.events[..step.events.end];
    let forgot = seen
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Forgot { replica } => Some(*replica),
            _ => None,
        })
        .collect();
    let holds_ticket = seen.iter().any(|e| {
        matches!(
            &e.kind,
            EventKind::Sent {
                to: Actor::Client,
                kind: MessageKind::InputRequired,
                ..
            }
        )
    });
    Frame {
        focus: step.focus,
        active_edges,
        message,
        forgot,
        holds_ticket,
    }
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
        assert_eq!(settled(1).note(Actor::ReplicaA), "remembers nothing");
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
}
