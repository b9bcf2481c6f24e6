use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::embedded::{Embedded, LinkNotes};
use super::later::{load_more, load_when_needed, Later, EMBED_DOCS};
use super::page_link::{location_hash, location_search, scroll_to, shared_link};
use super::theme::{apply, remembered, ThemeToggle};
use super::RoundTrip;
use crate::state::embed::{parse_query, widget_title};
use crate::state::link::{Link, Widget};

/// Printing opens every folded section, so the handout has it all.
fn open_details_before_print() {
    let handle = window_event_listener(leptos::ev::beforeprint, |_| {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        if let Ok(all) = doc.query_selector_all("details") {
            for i in 0..all.length() {
                if let Some(d) = all.item(i) {
                    let _ = d
                        .unchecked_into::<web_sys::Element>()
                        .set_attribute("open", "");
                }
            }
        }
    });
    on_cleanup(move || handle.remove());
}

/// The round trip is drawn here; every other widget comes with the second module.
fn widget_view(w: Widget, link: RwSignal<Link>) -> AnyView {
    match w {
        Widget::RoundTrip => view! { <RoundTrip link=link/> }.into_any(),
        other => view! { <Later id=other.id() title=widget_title(other)/> }.into_any(),
    }
}

/// The whole page, or one widget alone when embedded.
#[component]
pub fn App() -> impl IntoView {
    let query = parse_query(&location_search());
    apply(query.theme.or_else(remembered));
    open_details_before_print();
    let (initial, mut notes) = Link::parse(&location_hash());
    notes.extend(query.notes.iter().cloned());
    let notes = RwSignal::new(notes);
    // The reader edited the URL: show what could not be used, and go to the widget.
    let link = shared_link(initial, move |n, target| {
        notes.set(n);
        if target != Widget::RoundTrip {
            load_more();
        }
        scroll_to(target.id());
    });
    if let Some(w) = query.embed {
        // index.html starts only the second module for its widgets' embeds; should this module
        // start anyway, its stand-in fetches the second.
        if w != Widget::RoundTrip {
            load_more();
        }
        return view! { <Embedded widget=w notes=notes>{widget_view(w, link)}</Embedded> }
            .into_any();
    }

    // A link to a widget lands on it, once the page has been drawn.
    let target = link.with_untracked(|l| l.widget);
    if target != Widget::RoundTrip {
        load_more();
        scroll_to(target.id());
    }
    request_animation_frame(load_when_needed);

    view! {
        <a class="skip" href="#roundtrip-h">"Skip to the round trip"</a>
        <header class="masthead">
            <div class="masthead-bar">
                <p class="kicker">"MCP 2026-07-28 · SEP-2322"</p>
                <ThemeToggle/>
            </div>
            <h1 data-testid="title">"MRTR Lab"</h1>
            <p class="lede">
                "An MCP server may no longer interrupt a call to ask the user something. Instead it "
                "finishes the call early with "<code>"resultType: \"input_required\""</code>", listing its "
                "questions and handing the client a signed ticket, "<code>"requestState"</code>
                ", that holds the work done so far. The client gets the answers and sends the same "
                "request again, under a fresh id, carrying the answers and the untouched ticket. Because "
                "the ticket carries the state, any replica that holds the key can finish the job, and "
                "because it is signed, nobody can change what it says. This lab runs a real Rust MCP "
                "server and client in your browser so you can watch it happen, and try to break it."
            </p>
        </header>
        <main id="main">
            <LinkNotes notes=notes/>
            <RoundTrip link=link/>
            {Widget::ALL.into_iter().filter(|w| *w != Widget::RoundTrip).map(|w| view! { <Later id=w.id() title=widget_title(w)/> }).collect_view()}
            <Later id=EMBED_DOCS title="Embed a widget"/>
        </main>
        <footer class="colophon">
            <p>"Every message, ticket and verdict on this page is computed by the lab's protocol core, compiled to WebAssembly: the same code that passes the official MCP conformance suite natively."</p>
        </footer>
    }
    .into_any()
}
