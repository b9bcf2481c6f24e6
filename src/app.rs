//! The page: index.html holds the prose and a place per widget (`data-mount`); one root,
//! [`App`], owns the page's state and renders each widget into its place through a portal.
//! The round trip first; each other widget when the reader comes near it, when a link points
//! at it, before printing, or one per task once the page is idle. Each of those only adds to
//! one set of slots; which widgets are built, and when the page is ready, derive from it.

use leptos::portal::Portal;
use leptos::prelude::*;
use leptos_use::{use_intersection_observer_with_options, UseIntersectionObserverOptions};
use reactive_stores::Store;
use wasm_bindgen::JsCast;

use crate::components::lms;
use crate::components::page_link::{
    location_hash, location_search, open_fold, page_link, scroll_to,
};
use crate::components::theme::ThemeToggle;
use crate::components::{
    elements, AttackBench, AuditCard, EmbedDocs, LaterParts, LinkNotes, LiveServer, Quiz,
    ReadTheCode, RoundTrip, RulesExplorer, RunItRaw, TicketInspector,
};
use crate::state::embed::{parse_query, Query};
use crate::state::link::{Link, LinkStoreFields, Widget};
use crate::state::mounts::{Slot, Slots};
use crate::state::scorm;
use crate::state::stage::trace_of;

/// The attribute on `<html>` that says every widget is in its place: "ready".
pub const STATE_ATTR: &str = "data-widgets";
/// How long after start-up the widgets nobody has come near yet are mounted anyway.
const IDLE_MS: u64 = 1500;

fn mount_point(id: &str) -> Option<web_sys::Element> {
    document()
        .query_selector(&format!("[data-mount=\"{id}\"]"))
        .ok()
        .flatten()
}

fn view_for(slot: Slot) -> AnyView {
    match slot {
        Slot::Widget(Widget::RoundTrip) => view! { <RoundTrip/> }.into_any(),
        Slot::Widget(Widget::Ticket) => view! { <TicketInspector/> }.into_any(),
        Slot::Widget(Widget::Bench) => view! { <AttackBench/> }.into_any(),
        Slot::Widget(Widget::Raw) => view! { <RunItRaw/> }.into_any(),
        Slot::Widget(Widget::Code) => view! { <ReadTheCode/> }.into_any(),
        Slot::Widget(Widget::Rules) => view! { <RulesExplorer/> }.into_any(),
        Slot::Widget(Widget::Quiz) => view! { <Quiz/> }.into_any(),
        Slot::Widget(Widget::Audit) => view! { <AuditCard/> }.into_any(),
        Slot::Widget(Widget::Live) => view! { <LiveServer/> }.into_any(),
        Slot::EmbedDocs => view! { <EmbedDocs/> }.into_any(),
    }
}

/// Entry point: mounts the page's one root.
pub fn start() {
    crate::panic_panel::install();
    if let Some(html) = document().document_element() {
        // index.html stops waiting to report a failed start.
        let _ = html.set_attribute("data-started", "");
    }
    let query = parse_query(&location_search());
    crate::components::gloss_the_page();
    leptos::mount::mount_to_body(move || view! { <App query=query/> });
}

/// The page's root: the link, the notes on it, and which widgets are in their place.
#[component]
fn App(query: Query) -> impl IntoView {
    let (initial, mut first_notes) = Link::parse(&location_hash());
    first_notes.extend(query.notes.iter().cloned());
    let notes = RwSignal::new(first_notes);
    let target = initial.widget;
    // What start-up, links, printing and idle time asked for; what the reader came near.
    let wanted = RwSignal::new(Slots::default());
    let near = RwSignal::new(Slots::default());
    // Coming near counts once the round trip and the linked widget are in (before that, the
    // sections just below the top would be built ahead of them).
    let settled = RwSignal::new(false);
    let mounted = Memo::new(move |_| {
        let w = wanted.get();
        if settled.get() {
            w.union(near.get())
        } else {
            w
        }
    });
    let link = page_link(initial, move |n, w| {
        notes.set(n);
        wanted.update(|s| *s = s.with(Slot::Widget(w)));
        request_animation_frame(move || scroll_to(w));
    });

    provide_context(link);
    // A course platform, if the page runs inside one; and the widgets worked through, for a
    // parent window that listens (each one the link has pointed at, told as the list grows).
    lms::connect();
    let worked = StoredValue::new(Vec::<&'static str>::new());
    Effect::new(move |_| {
        let w = link.widget().get().id();
        if !worked.with_value(|ws| ws.contains(&w)) {
            worked.update_value(|ws| ws.push(w));
            worked.with_value(|ws| lms::tell_parent(&scorm::progress_message(ws), false));
        }
    });
    let later = RwSignal::new(0u32);
    provide_context(LaterParts(later));
    let whole = match query.embed {
        Some(w) => Slots::of(Slot::Widget(w)),
        None => Slots::all(),
    };
    let ready = Memo::new(move |_| mounted.get().covers(whole) && later.get() == 0);
    Effect::new(move |_| {
        if ready.get() {
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute(STATE_ATTR, "ready");
            }
        }
    });

    match query.embed {
        Some(w) => {
            // One widget alone (index.html hid the rest before the first paint).
            wanted.set(whole);
            open_fold(w);
            embed_glossary(w);
            post_height(w);
        }
        None => {
            if let Some(html) = document().document_element() {
                // An embed of nothing known shows the whole page (its note says why).
                let _ = html.remove_attribute("data-embed");
            }
            for slot in Slot::ALL {
                on_approach(slot, near);
            }
            let before_print = window_event_listener(leptos::ev::beforeprint, move |_| {
                wanted.set(Slots::all());
                open_details();
            });
            on_cleanup(move || before_print.remove());
            start_in_turn(link, wanted, settled, target);
        }
    }

    view! {
        {mount_point("notes").map(|el| view! { <Portal mount=el><LinkNotes notes=notes/></Portal> })}
        {query.embed.is_none().then(|| mount_point("theme").map(|el| view! { <Portal mount=el><ThemeToggle/></Portal> }))}
        <For each=move || mounted.get().iter() key=|slot| *slot let:slot>
            {mount_point(slot.id()).map(|el| view! { <Portal mount=el>{view_for(slot)}</Portal> })}
        </For>
    }
}

/// Start-up in tasks of its own, so the page answers input in between: the round trip's
/// trace, then its widget, then the linked widget (landed on), then what waits for the
/// reader; once the page is idle, the rest, one per task. The timers only set signals.
fn start_in_turn(
    link: Store<Link>,
    wanted: RwSignal<Slots>,
    settled: RwSignal<bool>,
    target: Widget,
) {
    let (knobs, ending) = link.with_untracked(|l| (l.knobs, l.ending));
    let next = |f: Box<dyn FnOnce()>| set_timeout(f, std::time::Duration::ZERO);
    next(Box::new(move || {
        trace_of(knobs, ending);
        wanted.update(|s| *s = s.with(Slot::Widget(Widget::RoundTrip)));
        next(Box::new(move || {
            wanted.update(|s| *s = s.with(Slot::Widget(target)));
            if target != Widget::RoundTrip {
                request_animation_frame(move || scroll_to(target));
            }
            settled.set(true);
            set_timeout(
                move || add_rest_in_turn(wanted),
                std::time::Duration::from_millis(IDLE_MS),
            );
        }));
    }));
}

/// Adds the first slot not yet wanted, then the next in a task of its own, until all are.
fn add_rest_in_turn(wanted: RwSignal<Slots>) {
    let Some(Some(slot)) = wanted.try_with_untracked(|w| w.next_missing(Slots::all())) else {
        return;
    };
    wanted.update(|s| *s = s.with(slot));
    set_timeout(move || add_rest_in_turn(wanted), std::time::Duration::ZERO);
}

/// Marks a slot as near when the reader comes within a screen of its section (the section:
/// what is inside it is not laid out until then).
fn on_approach(slot: Slot, near: RwSignal<Slots>) {
    let Some(el) = document().get_element_by_id(slot.id()) else {
        return;
    };
    use_intersection_observer_with_options(
        el,
        move |entries, _| {
            if entries.iter().any(|e| e.is_intersecting()) {
                near.update(|s| *s = s.with(slot));
            }
        },
        UseIntersectionObserverOptions::default().root_margin("100% 0px".to_owned()),
    );
}

/// Printing opens every folded section, so the handout has it all.
fn open_details() {
    if let Ok(all) = document().query_selector_all("details") {
        for d in elements(all) {
            let _ = d.set_attribute("open", "");
        }
    }
}

/// An embed carries the definitions of the words its widget uses: copies of the page's own
/// (`dl.words`), so each definition is written once.
fn embed_glossary(w: Widget) {
    let doc = document();
    let (Some(aside), Ok(dts), Ok(dl)) = (
        mount_point("glossary"),
        doc.query_selector_all("dl.words > dt"),
        doc.create_element("dl"),
    ) else {
        return;
    };
    dl.set_class_name("words");
    let dts: Vec<web_sys::Element> = elements(dts).collect();
    for term in crate::state::glossary::terms(w) {
        let Some(dt) = dts
            .iter()
            .find(|dt| dt.text_content().as_deref() == Some(*term))
        else {
            continue;
        };
        for e in [Some(dt.clone()), dt.next_element_sibling()]
            .into_iter()
            .flatten()
        {
            if let Some(copy) = copy_without_ids(&e) {
                let _ = dl.append_child(&copy);
            }
        }
    }
    let _ = aside.append_child(&dl);
}

/// A deep copy of `e` with no `id` in it: a copy's ids would clash with the originals'.
fn copy_without_ids(e: &web_sys::Element) -> Option<web_sys::Element> {
    let copy: web_sys::Element = e.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
    let _ = copy.remove_attribute("id");
    if let Ok(inner) = copy.query_selector_all("[id]") {
        for x in elements(inner) {
            let _ = x.remove_attribute("id");
        }
    }
    Some(copy)
}

/// Tells the embedding page how tall this document is, whenever that changes.
fn post_height(widget: Widget) {
    let Ok(Some(parent)) = window().parent() else {
        return;
    };
    let Some(html) = document().document_element() else {
        return;
    };
    let target = html.clone();
    leptos_use::use_resize_observer(html, move |_, _| {
        let msg = format!(
            r#"{{"type":"mrtr-lab:height","widget":"{}","height":{}}}"#,
            widget.id(),
            target.scroll_height()
        );
        if let Ok(v) = js_sys::JSON::parse(&msg) {
            let _ = parent.post_message(&v, "*");
        }
        // Canvas sizes a frame from its own message, sent as text.
        lms::tell_parent(&scorm::canvas_resize(target.scroll_height()), true);
    });
}
