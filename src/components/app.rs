use leptos::prelude::*;

use super::{
    MisuseTicket, Quiz, RoundTrip, RulesExplorer, RunItRaw, TicketInspector, TicketTimeline,
};
use crate::state::link::{Link, Widget};

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Puts the fragment in the address bar without adding a history entry or firing hashchange.
fn replace_hash(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    if location_hash().trim_start_matches('#') == fragment {
        return;
    }
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        );
    }
}

/// Brings a widget into view once the page has been drawn.
fn scroll_to(widget: Widget) {
    request_animation_frame(move || {
        let el = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(widget.id()));
        if let Some(el) = el {
            el.scroll_into_view();
        }
    });
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let (initial, notes) = Link::parse(&location_hash());
    let link = RwSignal::new(initial);
    let notes = RwSignal::new(notes);
    // The URL follows the state…
    Effect::new(move |_| {
        let f = link.with(Link::to_fragment);
        replace_hash(&f);
    });
    // …and the state follows a URL the reader edits by hand.
    let listener = window_event_listener(leptos::ev::hashchange, move |_| {
        let (l, n) = Link::parse(&location_hash());
        let target = l.widget;
        if link.try_with_untracked(|cur| *cur != l) == Some(true) {
            link.set(l);
        }
        notes.set(n);
        scroll_to(target);
    });
    on_cleanup(move || listener.remove());
    // A link to a widget lands on it, once the page has been drawn.
    let target = link.with_untracked(|l| l.widget);
    if target != Widget::RoundTrip {
        scroll_to(target);
    }

    view! {
        <a class="skip" href="#roundtrip-h">"Skip to the round trip"</a>
        <header class="masthead">
            <p class="kicker">"MCP 2026-07-28 · SEP-2322"</p>
            <h1 data-testid="title">"MRTR Lab"</h1>
            <p class="lede">
                "An MCP server may no longer interrupt a call to ask the user something. Instead it "
                "finishes the call early with "<code>"resultType: \"input_required\""</code>", listing its "
                "questions and handing the client a signed ticket, "<code>"requestState"</code>
                ", that holds the work done so far. The client gets the answers and sends the same "
                "request again, with a new id, the answers and the ticket exactly as it was. Because "
                "the ticket carries the state, any replica that holds the key can finish the job, and "
                "because it is signed, nobody can change what it says. This lab runs a real Rust MCP "
                "server and client in your browser so you can watch it happen, and try to break it."
            </p>
        </header>
        <main id="main">
            <Show when=move || !notes.with(Vec::is_empty)>
                <div class="note" role="status" data-testid="link-note">
                    <strong>"Some of this link could not be used, so those settings start from the beginning: "</strong>
                    {move || notes.get().join("; ")}
                    <button type="button" class="link-button" on:click=move |_| notes.set(Vec::new())>"Dismiss"</button>
                </div>
            </Show>
            <RoundTrip link=link/>
            <TicketInspector link=link/>
            <TicketTimeline link=link/>
            <MisuseTicket link=link/>
            <RunItRaw link=link/>
            <RulesExplorer link=link/>
            <Quiz/>
        </main>
        <footer class="colophon">
            <p>"Every message, ticket and verdict on this page is computed by the lab's protocol core, compiled to WebAssembly: the same code that passes the official MCP conformance suite natively."</p>
        </footer>
    }
}
