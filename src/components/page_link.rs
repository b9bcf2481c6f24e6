//! The page's deep link, kept in the address bar. The page is two wasm modules (the first
//! screen, and the widgets below it, loaded later); each holds its own copy of the [`Link`],
//! and the address bar is the one they agree on: whoever changes it says so with an event.

use leptos::prelude::*;

use crate::state::link::{Link, Widget};

/// Fired on `window` after one module has written a new fragment.
pub const LINK_EVENT: &str = "mrtr-lab:link";

pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

pub fn location_search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Puts the fragment in the address bar without adding a history entry or firing hashchange.
/// Returns whether it changed.
fn replace_hash(fragment: &str) -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
    if location_hash().trim_start_matches('#') == fragment {
        return false;
    }
    let Ok(h) = w.history() else { return false };
    h.replace_state_with_url(
        &wasm_bindgen::JsValue::NULL,
        "",
        Some(&format!("#{fragment}")),
    )
    .is_ok()
}

fn announce() {
    if let (Some(w), Ok(e)) = (web_sys::window(), web_sys::Event::new(LINK_EVENT)) {
        let _ = w.dispatch_event(&e);
    }
}

/// The link, written to the address bar whenever it changes and read back whenever the other
/// module or the reader changes it. `on_edit` hears about fragments the reader typed: the
/// notes on what could not be used, and the widget they point at.
pub fn shared_link(
    initial: Link,
    on_edit: impl Fn(Vec<String>, Widget) + 'static,
) -> RwSignal<Link> {
    let link = RwSignal::new(initial);
    Effect::new(move |_| {
        let f = link.with(Link::to_fragment);
        if replace_hash(&f) {
            announce();
        }
    });
    let adopt = move |l: Link| {
        // Only a real change is set, so the two modules cannot echo each other forever.
        if link.try_with_untracked(|cur| *cur != l) == Some(true) {
            link.set(l);
        }
    };
    let from_other = window_event_listener_untyped(LINK_EVENT, move |_| {
        adopt(Link::parse(&location_hash()).0);
    });
    let from_reader = window_event_listener(leptos::ev::hashchange, move |_| {
        let (l, notes) = Link::parse(&location_hash());
        let target = l.widget;
        adopt(l);
        on_edit(notes, target);
    });
    on_cleanup(move || {
        from_other.remove();
        from_reader.remove();
    });
    link
}

/// Brings a widget into view now.
pub fn scroll_now(id: &str) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id));
    if let Some(el) = el {
        el.scroll_into_view();
    }
}

/// Brings a widget into view once the page has been drawn.
pub fn scroll_to(id: &'static str) {
    request_animation_frame(move || scroll_now(id));
}
