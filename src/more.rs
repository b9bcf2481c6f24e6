//! The second wasm module (`src/bin/more.rs`): the widgets below the first screen. It mounts
//! each into the stand-in the first module drew (see `first_screen::loader`), one task per widget
//! so the page can answer input in between, and shares the deep link through the address bar.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::components::page_link::shared_link;
use crate::components::{
    AuditCard, EmbedDocs, MisuseTicket, Quiz, RulesExplorer, RunItRaw, TicketInspector,
    TicketTimeline,
};
use crate::first_screen::dom::{find_all, root};
use crate::first_screen::link::{location_hash, location_search, scroll_now};
use crate::first_screen::theme::{apply, remembered};
use crate::first_screen::{booted, embed_frame, show_notes};
use crate::markup::{EMBED_DOCS, STATE_ATTR};
use crate::state::embed::parse_query;
use crate::state::link::{Link, Widget};

/// Whether this module fills the stand-in `id`: every widget but the round trip, and the
/// embed docs.
fn fills(id: &str) -> bool {
    id == EMBED_DOCS || Widget::from_id(id).is_some_and(|w| w != Widget::RoundTrip)
}

fn view_for(id: &str, link: RwSignal<Link>) -> AnyView {
    match Widget::from_id(id) {
        Some(Widget::Ticket) => view! { <TicketInspector link=link/> }.into_any(),
        Some(Widget::Timeline) => view! { <TicketTimeline link=link/> }.into_any(),
        Some(Widget::Misuse) => view! { <MisuseTicket link=link/> }.into_any(),
        Some(Widget::Raw) => view! { <RunItRaw link=link/> }.into_any(),
        Some(Widget::Rules) => view! { <RulesExplorer link=link/> }.into_any(),
        Some(Widget::Quiz) => view! { <Quiz/> }.into_any(),
        Some(Widget::Audit) => view! { <AuditCard link=link/> }.into_any(),
        _ => view! { <EmbedDocs/> }.into_any(),
    }
}

/// Mounts the widget for `stand_ins[i]`, then the rest, each in a task of its own so the page
/// can answer input in between (a frame callback would let several share one long task).
fn mount_from(
    stand_ins: Vec<web_sys::HtmlElement>,
    i: usize,
    link: RwSignal<Link>,
    done: impl FnOnce() + 'static,
) {
    let Some(el) = stand_ins.get(i).cloned() else {
        done();
        return;
    };
    let id = el.get_attribute("data-later").unwrap_or_default();
    if fills(&id) {
        el.set_inner_html("");
        let handle = leptos::mount::mount_to(el, move || view_for(&id, link));
        // The page never takes these widgets away again.
        handle.forget();
    }
    set_timeout(
        move || mount_from(stand_ins, i + 1, link, done),
        std::time::Duration::ZERO,
    );
}

fn ready() {
    if let Some(h) = root() {
        let _ = h.set_attribute(STATE_ATTR, "ready");
    }
}

/// Entry point of the second module.
pub fn start() {
    crate::panic_panel::install();
    // Effects need the executor before the first mount would set it up.
    let _ = any_spawner::Executor::init_wasm_bindgen();
    // A root for the link's effects and listeners, kept for the page's life.
    let owner = Owner::new();
    owner.set();
    let query = parse_query(&location_search());
    let stand_ins: Vec<web_sys::HtmlElement> = root()
        .map(|html| find_all(&html, "[data-later]"))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| e.dyn_into().ok())
        .collect();
    match query.embed {
        // index.html started this module alone: an embed of one of its widgets.
        Some(w) if stand_ins.is_empty() && fills(w.id()) => {
            apply(query.theme.or_else(remembered));
            let (initial, mut notes) = Link::parse(&location_hash());
            notes.extend(query.notes.iter().cloned());
            let link = shared_link(initial, move |n, _| show_notes(&n));
            if let Some(slot) = embed_frame(w, &notes) {
                let slot: web_sys::HtmlElement = slot.unchecked_into();
                leptos::mount::mount_to(slot, move || view_for(w.id(), link)).forget();
            }
            booted();
            ready();
        }
        embed => {
            // The first module shows the notes on a fragment; this one only follows it.
            let link = shared_link(Link::parse(&location_hash()).0, |_, _| {});
            // Each widget in a task of its own, starting after this one (the module's start-up).
            set_timeout(
                move || {
                    mount_from(stand_ins, 0, link, move || {
                        // The widgets above the linked one have grown from their stand-ins:
                        // land on it again (the link may have changed while they arrived),
                        // then say the page is ready.
                        let target = link.with_untracked(|l| l.widget);
                        if embed.is_none() && target != Widget::RoundTrip {
                            scroll_now(target.id());
                        }
                        ready();
                    });
                },
                std::time::Duration::ZERO,
            );
        }
    }
    std::mem::forget(owner);
}
