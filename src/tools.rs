//! The implementers' tools: "Audit your server" and "Try it on a real server", a WebAssembly
//! module of their own (`mrtr-lab-tools`). The lesson's module loads it when one of their
//! sections is first wanted (see [`crate::state::mounts::Module`]); most readers never open
//! them, so most never download the audit engine, the live client or the fetch layer.
//!
//! It renders each of its widgets into its place in index.html, the way the lesson renders
//! its own, with a link store of its own that follows the lesson's through the address bar
//! ([`crate::components::page_link::LINK_WRITTEN`]). When every part is drawn it says so on
//! `<html>` ([`TOOLS_ATTR`]) and tells the lesson ([`TOOLS_READY`]), whose readiness waits
//! for it.

use leptos::portal::Portal;
use leptos::prelude::*;

use crate::app::mount_point;
use crate::components::page_link::{location_hash, page_link};
use crate::components::{AuditCard, LaterParts, LiveServer};
use crate::state::link::{Link, Widget};
use crate::state::mounts::{Module, Slot, Slots, TOOLS_ATTR, TOOLS_READY};

/// Entry point of the tools' module: renders its widgets into their places.
pub fn start_tools() {
    crate::components::mark("tools:start");
    crate::panic_panel::install();
    leptos::mount::mount_to_body(Tools);
}

/// The tools' root: their link store, and their widgets in their places.
#[component]
fn Tools() -> impl IntoView {
    let (initial, _notes) = Link::parse(&location_hash());
    let target = Slot::Widget(initial.widget);
    // The lesson tells the reader what could not be used from the link, and scrolls; this
    // store only follows the address bar.
    let link = page_link(initial, |_, _| {});
    provide_context(link);
    let later = RwSignal::new(0u32);
    provide_context(LaterParts(later));
    // The part the link points at first, the other one a task later.
    let all = Slots::of_module(Module::Tools);
    let first = all
        .iter()
        .find(|s| *s == target)
        .or_else(|| all.iter().next());
    let shown = RwSignal::new(first.map(Slots::of).unwrap_or_default());
    later.update(|n| *n += 1);
    set_timeout(
        move || {
            shown.set(Slots::of_module(Module::Tools));
            later.update(|n| *n = n.saturating_sub(1));
        },
        std::time::Duration::ZERO,
    );
    Effect::new(move |_| {
        if shown.get() == Slots::of_module(Module::Tools) && later.get() == 0 {
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute(TOOLS_ATTR, "ready");
            }
            if let Ok(e) = web_sys::Event::new(TOOLS_READY) {
                let _ = window().dispatch_event(&e);
            }
        }
    });
    view! {
        <For each=move || shown.get().iter() key=|slot| *slot let:slot>
            {mount_point(slot.id()).map(|el| view! { <Portal mount=el>{view_for(slot)}</Portal> })}
        </For>
    }
}

fn view_for(slot: Slot) -> AnyView {
    match slot {
        Slot::Widget(Widget::Audit) => view! { <AuditCard/> }.into_any(),
        Slot::Widget(Widget::Live) => view! { <LiveServer/> }.into_any(),
        // Not the tools' (Slot::module): the lesson renders it.
        _ => ().into_any(),
    }
}
