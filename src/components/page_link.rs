//! The deep link in the second module: a Leptos signal kept in step with the address bar (see
//! [`crate::first_screen::link`], which does the same for the first module without Leptos).

use leptos::prelude::*;

use crate::first_screen::link::{location_hash, write_fragment, LINK_EVENT};
use crate::state::link::{Link, Widget};

/// The link, written to the address bar whenever it changes and read back whenever the other
/// module or the reader changes it. `on_edit` hears about fragments the reader typed: the
/// notes on what could not be used, and the widget they point at.
pub fn shared_link(
    initial: Link,
    on_edit: impl Fn(Vec<String>, Widget) + 'static,
) -> RwSignal<Link> {
    let link = RwSignal::new(initial);
    Effect::new(move |_| write_fragment(&link.with(Link::to_fragment)));
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
