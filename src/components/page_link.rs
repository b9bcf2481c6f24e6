//! The deep link: one store for the whole page, in context ([`use_link`]), written to the
//! address bar as it changes (a burst of changes at most every [`WRITE_EVERY_MS`], the last
//! state always; without adding history) and read back when the reader edits the fragment.
//! A widget reads the fields it shows (`link.step().get()`: a change elsewhere does not wake
//! it) and changes its own through [`EditLink::edit`].

use leptos::prelude::*;
use leptos_use::use_throttle_fn;
use reactive_stores::Store;

use crate::state::link::{Link, LinkStoreFields, Widget};

/// The address's fragment (`#…`), or empty.
pub fn location_hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// The address's query (`?…`), or empty.
pub fn location_search() -> String {
    window().location().search().unwrap_or_default()
}

/// The event each of the page's modules sends when it has written the fragment, so the
/// other one's store follows: the lesson and the implementers' tools are two modules with a
/// store each, over one address bar.
pub const LINK_WRITTEN: &str = "mrtr-lab:link-written";

/// How often, at most, the address bar is written while the link changes.
pub const WRITE_EVERY_MS: u64 = 150;

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
        if h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
            .is_ok()
        {
            if let Ok(e) = web_sys::Event::new(LINK_WRITTEN) {
                let _ = window().dispatch_event(&e);
            }
        }
    }
}

/// The link, kept in the address bar. `on_edit` hears of fragments the reader typed: what
/// could not be used, and the widget the link points at.
pub fn page_link(initial: Link, on_edit: impl Fn(Vec<String>, Widget) + 'static) -> Store<Link> {
    let link = Store::new(initial);
    // Written at once when nothing was written in the last WRITE_EVERY_MS, else once that time
    // is up, with the link's latest state (leptos-use's throttle, leading and trailing): a
    // drag or typing in the ticket box changes the link on every event, and browsers throttle
    // `replaceState` (its error would be the reader's URL silently going stale). A click is
    // written as it happens.
    let write = use_throttle_fn(
        move || {
            if let Some(f) = link.try_with_untracked(Link::to_fragment) {
                write_fragment(&f);
            }
        },
        WRITE_EVERY_MS as f64,
    );
    Effect::new(move |_| {
        link.track();
        write();
    });
    let edited = window_event_listener(leptos::ev::hashchange, move |_| {
        let (l, notes) = Link::parse(&location_hash());
        let target = l.widget;
        if link.try_with_untracked(|cur| *cur != l) == Some(true) {
            link.set(l);
        }
        on_edit(notes, target);
    });
    // The other module wrote the fragment: take its state, without the reader's-edit steps
    // (no notes, no scrolling). Its own writes come back equal, and change nothing.
    let followed = window_event_listener_untyped(LINK_WRITTEN, move |_| {
        let (l, _) = Link::parse(&location_hash());
        if link.try_with_untracked(|cur| *cur != l) == Some(true) {
            link.set(l);
        }
    });
    on_cleanup(move || {
        edited.remove();
        followed.remove();
    });
    link
}

/// The page's link, which the page's root provides.
pub fn use_link() -> Store<Link> {
    expect_context::<Store<Link>>()
}

/// How a widget changes the link.
pub trait EditLink {
    /// The reader works in `widget` now: the link points there (a link copied now opens
    /// where they were), and the store is handed back to change a field through it, e.g.
    /// `link.edit(Widget::Bench).mv().set(Some(m))` — written field by field, so only that
    /// field's readers (and the address bar) hear of it.
    fn edit(self, widget: Widget) -> Self;
}

impl EditLink for Store<Link> {
    fn edit(self, widget: Widget) -> Self {
        if self.widget().get_untracked() != widget {
            self.widget().set(widget);
        }
        self
    }
}

/// Brings a widget into view, its section's fold opened (a link to a folded section means
/// its contents).
pub fn scroll_to(w: Widget) {
    open_fold(w);
    if let Some(el) = document().get_element_by_id(w.id()) {
        el.scroll_into_view();
    }
}

/// Opens the fold a widget's section is folded in (`<details class="fold">`), if any.
pub fn open_fold(w: Widget) {
    if let Some(Ok(Some(fold))) = document()
        .get_element_by_id(w.id())
        .map(|el| el.query_selector(":scope > details.fold"))
    {
        let _ = fold.set_attribute("open", "");
    }
}
