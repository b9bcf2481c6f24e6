//! The deep link: one signal for the whole page, written to the address bar whenever it
//! changes (without adding history) and read back when the reader edits the fragment.

use leptos::prelude::*;

use crate::state::link::{Link, Widget};

pub fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

pub fn location_search() -> String {
    window().location().search().unwrap_or_default()
}

/// Puts the fragment in the address bar without a history entry or a hashchange event.
/// The URL is written whole: a bare "#…" would resolve against the page's `<base>`, which
/// drops the query (and with it `?embed=`).
fn write_fragment(fragment: &str) {
    if location_hash().trim_start_matches('#') == fragment {
        return;
    }
    let l = window().location();
    let url = format!(
        "{}{}#{fragment}",
        l.pathname().unwrap_or_default(),
        l.search().unwrap_or_default()
    );
    if let Ok(h) = window().history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The link, kept in the address bar. `on_edit` hears of fragments the reader typed: what
/// could not be used, and the widget the link points at.
pub fn page_link(initial: Link, on_edit: impl Fn(Vec<String>, Widget) + 'static) -> RwSignal<Link> {
    let link = RwSignal::new(initial);
    Effect::new(move |_| write_fragment(&link.with(Link::to_fragment)));
    let edited = window_event_listener(leptos::ev::hashchange, move |_| {
        let (l, notes) = Link::parse(&location_hash());
        let target = l.widget;
        if link.try_with_untracked(|cur| *cur != l) == Some(true) {
            link.set(l);
        }
        on_edit(notes, target);
    });
    on_cleanup(move || edited.remove());
    link
}

/// Brings a widget into view.
pub fn scroll_to(w: Widget) {
    if let Some(el) = document().get_element_by_id(w.id()) {
        el.scroll_into_view();
    }
}
