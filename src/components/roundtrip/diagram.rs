use leptos::prelude::*;
use mrtr_world::geometry::{in_flight, Layout};
use mrtr_world::{Actor, EventKind, MessageKind, Trace};

use crate::state::playback::Playback;

const EDGES: [(Actor, Actor); 4] = [
    (Actor::Host, Actor::Client),
    (Actor::Client, Actor::Balancer),
    (Actor::Balancer, Actor::ReplicaA),
    (Actor::Balancer, Actor::ReplicaB),
];

/// The label of a message in flight, read off the message itself.
fn message_label(k: MessageKind, json: &serde_json::Value) -> String {
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

fn kind_class(k: MessageKind) -> &'static str {
    match k {
        MessageKind::Call | MessageKind::Retry => "msg request",
        MessageKind::InputRequired | MessageKind::Question | MessageKind::Answer => "msg ask",
        MessageKind::Complete => "msg ok",
        MessageKind::Error => "msg bad",
    }
}

/// What the diagram shows at one moment: computed from the trace and the player.
#[derive(Clone, Debug, PartialEq)]
struct Frame {
    focus: Actor,
    active_edges: Vec<(Actor, Actor)>,
    message: Option<(f64, f64, MessageKind, String)>,
    forgot: Vec<Actor>,
    holds_ticket: bool,
}

fn frame(t: &Trace, p: &Playback, reduced_motion: bool, layout: Layout) -> Frame {
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

/// SVG user units as whole numbers: a unit is under a pixel here, and integers keep the float
/// formatter out of the wasm.
fn px(v: f64) -> i32 {
    v.round() as i32
}

#[component]
pub fn Diagram(
    trace: Memo<Trace>,
    playback: RwSignal<Playback>,
    reduced_motion: bool,
    layout: Layout,
) -> impl IntoView {
    let f =
        Memo::new(move |_| trace.with(|t| playback.with(|p| frame(t, p, reduced_motion, layout))));
    let (vw, vh) = layout.view_box();
    let position = move |a| {
        let (x, y) = layout.position(a);
        (px(x), px(y))
    };
    let title_id = format!("diagram-title-{}", layout.id());
    let desc_id = format!("diagram-desc-{}", layout.id());
    let edge_on = move |a: Actor, b: Actor| {
        f.with(|f| {
            f.active_edges
                .iter()
                .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
        })
    };
    view! {
        <svg class=format!("diagram {}", layout.id()) viewBox=format!("0 0 {} {}", px(vw), px(vh)) role="img"
            aria-labelledby=format!("{title_id} {desc_id}") data-layout=layout.id()>
            <title id=title_id.clone()>"Diagram: user and host, client, load balancer, replicas A and B"</title>
            <desc id=desc_id.clone()>"The transcript beside the diagram lists every message it shows, in order."</desc>
            {EDGES.into_iter().map(|(a, b)| {
                let (x1, y1) = position(a);
                let (x2, y2) = position(b);
                view! { <line class=move || if edge_on(a, b) { "edge on" } else { "edge" } x1=x1 y1=y1 x2=x2 y2=y2/> }
            }).collect_view()}
            {[Actor::Host, Actor::Client, Actor::Balancer, Actor::ReplicaA, Actor::ReplicaB].into_iter().map(|a| {
                let (x, y) = position(a);
                let class = move || {
                    let mut c = format!("actor {}", a.id());
                    if f.with(|f| f.focus == a) { c.push_str(" focus"); }
                    c
                };
                let note = move || f.with(|f| {
                    if a.is_replica() && f.forgot.contains(&a) { "remembers nothing" }
                    else if a == Actor::Client && f.holds_ticket { "holds the ticket" }
                    else { "" }
                });
                view! {
                    <g class=class data-actor=a.id()>
                        <rect x=x - 66 y=y - 24 width=132 height=48 rx=10/>
                        <text x=x y=y + 5 text-anchor="middle">{a.label()}</text>
                        <text class="actor-note" x=x y=y + 40 text-anchor="middle">{note}</text>
                    </g>
                }
            }).collect_view()}
            {move || f.with(|f| f.message.clone()).map(|(x, y, kind, label)| view! {
                <g class=kind_class(kind) data-testid="message">
                    <circle cx=px(x) cy=px(y - 34.0) r=9/>
                    <text x=px(x) y=px(y - 50.0) text-anchor="middle">{label}</text>
                </g>
            })}
        </svg>
    }
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
