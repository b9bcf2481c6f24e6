//! The diagram: five actors, the lines between them, and the one message in flight, drawn in
//! SVG from a [`Frame`] (pure, in `state::stage`). Only what a frame changes is updated.

use leptos::prelude::*;
use mrtr_world::geometry::Layout;
use mrtr_world::Actor;

use crate::state::stage::{kind_class, px, Frame, EDGES};

/// The actors in the order the diagram draws them.
pub const ACTORS: [Actor; 5] = [
    Actor::Host,
    Actor::Client,
    Actor::Balancer,
    Actor::ReplicaA,
    Actor::ReplicaB,
];

#[component]
pub fn Diagram(layout: Layout, frame: Memo<Frame>) -> impl IntoView {
    let id = layout.id();
    let (vw, vh) = layout.view_box();
    let at = move |a: Actor| {
        let (x, y) = layout.position(a);
        (px(x), px(y))
    };
    let title_id = format!("diagram-title-{id}");
    let desc_id = format!("diagram-desc-{id}");
    let labelled_by = format!("{title_id} {desc_id}");
    view! {
        <svg class=format!("diagram {id}") viewBox=format!("0 0 {} {}", px(vw), px(vh)) role="img"
            aria-labelledby=labelled_by data-layout=id>
            <title id=title_id>"Diagram: user and host, client, load balancer, replicas A and B"</title>
            <desc id=desc_id>"The transcript beside the diagram lists every message it shows, in order."</desc>
            {EDGES.into_iter().map(|(a, b)| {
                let ((x1, y1), (x2, y2)) = (at(a), at(b));
                view! {
                    <line class=move || if frame.with(|f| f.edge_on(a, b)) { "edge on" } else { "edge" }
                        x1=x1 y1=y1 x2=x2 y2=y2/>
                }
            }).collect_view()}
            {ACTORS.into_iter().map(|a| {
                let (x, y) = at(a);
                view! {
                    <g class=move || if frame.with(|f| f.focus == a) { format!("actor {} focus", a.id()) } else { format!("actor {}", a.id()) }
                        data-actor=a.id()>
                        <rect x=x - 66 y=y - 24 width="132" height="48" rx="10"/>
                        <text x=x y=y + 5 text-anchor="middle">{a.label()}</text>
                        <text class="actor-note" x=x y=y + 40 text-anchor="middle">{move || frame.with(|f| f.note(a))}</text>
                    </g>
                }
            }).collect_view()}
            {move || frame.with(|f| f.message.clone()).map(|(x, y, kind, label)| view! {
                <g class=kind_class(kind) data-testid="message">
                    <circle cx=px(x) cy=px(y - 34.0) r="9"/>
                    <text x=px(x) y=px(y - 50.0) text-anchor="middle">{label}</text>
                </g>
            })}
        </svg>
    }
}
