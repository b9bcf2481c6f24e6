//! The diagram: five actors, the lines between them, the one message in flight, the ticket as
//! a token with what it says, and replica B's checks, drawn in SVG from a [`Frame`] (pure, in
//! `state::stage`). Only what a frame changes is updated.

use leptos::prelude::*;
use mrtr_world::Actor;

use crate::state::geometry::{Layout, CHECK_ROW};
use crate::state::stage::{px, Frame, EDGES};

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
            <title id=title_id>"Diagram: the host, with the user and the client inside it; the load balancer; replicas A and B"</title>
            <desc id=desc_id>"The transcript beside the diagram lists every message it shows, in order."</desc>
            {
                let (x, y, w, h) = layout.host_frame();
                view! {
                    <g class="host-frame" data-testid="host-frame">
                        <rect x=px(x) y=px(y) width=px(w) height=px(h) rx="14"/>
                        <text x=px(x + 10.0) y=px(y + 16.0)>"Host: the app bob uses"</text>
                    </g>
                }
            }
            {EDGES.into_iter().map(|(a, b)| {
                let ((x1, y1), (x2, y2)) = (at(a), at(b));
                view! {
                    <line class="edge" class:on=move || frame.with(|f| f.edge_on(a, b))
                        x1=x1 y1=y1 x2=x2 y2=y2/>
                }
            }).collect_view()}
            {ACTORS.into_iter().map(|a| {
                let (x, y) = at(a);
                view! {
                    <g class=format!("actor {}", a.id()) class:focus=move || frame.with(|f| f.focus == a)
                        data-actor=a.id()>
                        <rect x=x - 70 y=y - 24 width="140" height="48" rx="10"/>
                        <text x=x y=y + 5 text-anchor="middle">{a.label()}</text>
                        <text class="actor-note" x=x y=y + 40 text-anchor="middle">{move || frame.with(|f| f.note(a))}</text>
                    </g>
                }
            }).collect_view()}
            {ticket_card(layout, frame)}
            {checks_lit(layout, frame)}
            {host_prompt(layout, frame)}
            {move || frame.with(|f| f.message.clone().map(|m| { let class = f.message_class(m.2); (m, class) })).map(|((x, y, _, label), class)| view! {
                <g class=class data-testid="message">
                    <circle cx=px(x) cy=px(y - 34.0) r="9"/>
                    <text x=px(x) y=px(y - 50.0) text-anchor="middle">{label}</text>
                </g>
            })}
            {ticket_chip(frame)}
        </svg>
    }
}

/// The ticket as anyone holding it reads it (and what was edited on the way back), in its
/// card, while the story has a ticket.
fn ticket_card(layout: Layout, frame: Memo<Frame>) -> impl IntoView {
    let (card_x, card_y, card_w) = layout.ticket_card();
    let face = Memo::new(move |_| {
        frame.with(|f| {
            f.ticket
                .as_ref()
                .map(|t| (t.face.clone(), t.edited.clone()))
        })
    });
    view! {
        {move || face.get().map(|(face, edited)| view! {
            <g class="ticket-card" data-testid="ticket-card">
                <rect x=px(card_x) y=px(card_y) width=px(card_w) height="70" rx="8"/>
                <text class="card-title" x=px(card_x + 12.0) y=px(card_y + 20.0)>"The ticket, as anyone holding it reads it"</text>
                <text class="card-face" x=px(card_x + 12.0) y=px(card_y + 42.0)>{face}</text>
                {edited.map(|e| view! {
                    <text class="card-edited" x=px(card_x + 12.0) y=px(card_y + 62.0)>{format!("edited on the way back: {e}")}</text>
                })}
            </g>
        })}
    }
}

/// Replica B's checks, lit one by one as it makes them.
fn checks_lit(layout: Layout, frame: Memo<Frame>) -> impl IntoView {
    let (checks_x, checks_y) = layout.checks_at();
    let checks = Memo::new(move |_| frame.with(|f| f.checks.clone()));
    view! {
        <g class="checks" data-testid="diagram-checks">
            <For each=move || checks.get().into_iter().enumerate() key=|(i, c)| (*i, c.id, c.symbol) let:((i, c))>
                <text class=format!("diagram-check {}", c.word.replace(' ', "-")) x=px(checks_x)
                    y=px(checks_y + i as f64 * CHECK_ROW) text-anchor="middle">
                    {format!("{} {}", c.symbol, c.id)}
                </text>
            </For>
        </g>
    }
}

/// What bob sees when the host asks him: the question and its button.
fn host_prompt(layout: Layout, frame: Memo<Frame>) -> impl IntoView {
    view! {
        {move || frame.with(|f| f.prompt.clone()).map(|(message, button)| {
            let (x, y, w, h) = layout.prompt_box();
            view! {
                <g class="host-prompt" data-testid="host-prompt">
                    <rect class="prompt-frame" x=px(x) y=px(y) width=px(w) height=px(h) rx="8"/>
                    <text class="prompt-title" x=px(x + 12.0) y=px(y + 17.0)>"What bob sees"</text>
                    <text class="prompt-text" x=px(x + 12.0) y=px(y + 36.0)>{message}</text>
                    <rect class="prompt-button" x=px(x + w - 92.0) y=px(y + h - 26.0) width="80" height="20" rx="5"/>
                    <text class="prompt-button-text" x=px(x + w - 52.0) y=px(y + h - 11.5) text-anchor="middle">{button}</text>
                </g>
            }
        })}
    }
}

/// The ticket itself, riding with the message that carries it or in the hand of whoever
/// received it last (marked once edited).
fn ticket_chip(frame: Memo<Frame>) -> impl IntoView {
    let chip_at = Memo::new(move |_| frame.with(|f| f.ticket.as_ref().and_then(|t| t.at)));
    let edited =
        Memo::new(move |_| frame.with(|f| f.ticket.as_ref().is_some_and(|t| t.edited.is_some())));
    view! {
        <Show when=move || chip_at.get().is_some()>
            <g class="ticket-chip" class:edited=edited data-testid="ticket-chip"
                transform=move || chip_at.get().map(|(x, y)| format!("translate({} {})", px(x), px(y))).unwrap_or_default()>
                <rect x="-32" y="-11" width="64" height="22" rx="5"/>
                <text y="5" text-anchor="middle">{move || if edited.get() { "ticket ✎" } else { "ticket" }}</text>
            </g>
        </Show>
    }
}
