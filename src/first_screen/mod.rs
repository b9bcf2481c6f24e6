//! The first wasm module (`mrtr-lab`): the page, the round trip, and a stand-in for every
//! other widget, drawn with plain DOM calls from the markup in [`crate::markup`]. No framework:
//! the first load's budget (150 KB compressed) leaves room for the protocol core and this,
//! not for a view library as well (measured in #8). The second module (`src/more.rs`) keeps
//! Leptos for the widgets below.

pub mod dom;
pub mod link;
pub mod loader;
pub mod roundtrip;
pub mod theme;

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::markup;
use crate::state::embed::{parse_query, widget_title};
use crate::state::link::{Link, Widget};
use dom::{document, find, find_all, listen, next_frame, root, target_element, window};
use link::{location_hash, location_search, scroll_to, SharedLink};
use loader::{load_more, load_when_needed};

/// Shows what could not be used from the link (or nothing). The note's Dismiss button is
/// handled by [`notes_dismissable`].
pub fn show_notes(notes: &[String]) {
    if let Some(slot) = document().and_then(|d| d.query_selector(".link-notes").ok().flatten()) {
        slot.set_inner_html(&markup::link_notes(notes));
    }
}

fn notes_dismissable(slot: &web_sys::Element) {
    let s = slot.clone();
    listen(slot, "click", move |ev| {
        if target_element(&ev)
            .is_some_and(|t| t.closest("[data-act=dismiss]").ok().flatten().is_some())
        {
            s.set_inner_html("");
        }
    });
}

/// Tells the embedding page how tall this document is, whenever that changes.
fn post_height(widget: Widget) {
    let Some(w) = window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    let Some(html) = root() else { return };
    let target = html.clone();
    let send = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        let msg = format!(
            r#"{{"type":"mrtr-lab:height","widget":"{}","height":{}}}"#,
            widget.id(),
            target.scroll_height()
        );
        if let Ok(v) = js_sys::JSON::parse(&msg) {
            let _ = parent.post_message(&v, "*");
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(send.as_ref().unchecked_ref()) {
        observer.observe(&html);
        // Lives as long as the page: an embed never unmounts.
        std::mem::forget(observer);
    }
    send.forget();
}

/// Draws one widget's embed frame (no page chrome, a credit, its height posted out) and
/// returns the slot the widget goes into.
pub fn embed_frame(widget: Widget, notes: &[String]) -> Option<web_sys::Element> {
    let body = document()?.body()?;
    body.insert_adjacent_html("beforeend", &markup::embed_frame())
        .ok()?;
    if let Some(html) = root() {
        let _ = html.set_attribute("data-embed", widget.id());
    }
    post_height(widget);
    if let Some(slot) = find(&body, ".link-notes") {
        notes_dismissable(&slot);
    }
    show_notes(notes);
    find(&body, ".slot")
}

/// Printing opens every folded section, so the handout has it all.
fn open_details_before_print() {
    let Some(w) = window() else { return };
    listen(&w, "beforeprint", |_| {
        if let Some(html) = root() {
            for d in find_all(&html, "details") {
                let _ = d.set_attribute("open", "");
            }
        }
    });
}

/// Takes away index.html's "starting" note once a module has drawn the page.
pub fn booted() {
    if let Some(boot) = document().and_then(|d| d.get_element_by_id("boot")) {
        boot.remove();
    }
}

/// Entry point of the first module: the whole page, or the round trip alone when embedded.
pub fn start() {
    crate::panic_panel::install();
    let query = parse_query(&location_search());
    theme::apply(query.theme.or_else(theme::remembered));
    dom::after(0, open_details_before_print);
    let (initial, mut notes) = Link::parse(&location_hash());
    notes.extend(query.notes.iter().cloned());
    let target = initial.widget;
    let link = SharedLink::new(initial);
    let Some(body) = document().and_then(|d| d.body()) else {
        return;
    };

    if let Some(w) = query.embed {
        let Some(slot) = embed_frame(w, &notes) else {
            return;
        };
        link.follow(|n, _| show_notes(&n));
        if w == Widget::RoundTrip {
            roundtrip::RoundTrip::mount(&slot, Rc::clone(&link));
        } else {
            // index.html starts only the second module for its widgets' embeds; should this
            // module start anyway, a stand-in takes the widget and the second module is fetched.
            let _ =
                slot.insert_adjacent_html("beforeend", &markup::stand_in(w.id(), widget_title(w)));
            load_more();
        }
        booted();
        return;
    }

    let later: Vec<(&str, &str)> = Widget::ALL
        .into_iter()
        .filter(|w| *w != Widget::RoundTrip)
        .map(|w| (w.id(), widget_title(w)))
        .chain([(markup::EMBED_DOCS, "Embed a widget")])
        .collect();
    if body
        .insert_adjacent_html("beforeend", &markup::page(&later))
        .is_err()
    {
        return;
    }
    if let Some(button) = find(&body, ".theme-toggle") {
        theme::toggle(&button);
    }
    if let Some(slot) = find(&body, ".link-notes") {
        notes_dismissable(&slot);
    }
    show_notes(&notes);
    if let Some(slot) = find(&body, "main > .slot") {
        roundtrip::RoundTrip::mount(&slot, Rc::clone(&link));
    }
    // The reader edited the URL: show what could not be used, and go to the widget.
    link.follow(|n, target| {
        show_notes(&n);
        if target != Widget::RoundTrip {
            load_more();
        }
        scroll_to(target.id());
    });
    // A link to a widget lands on it, once the page has been drawn.
    if target != Widget::RoundTrip {
        load_more();
        scroll_to(target.id());
    }
    next_frame(load_when_needed);
    booted();
}
