//! The page: index.html holds the prose and a place per widget (`data-mount`); one root,
//! [`App`], owns the page's state and renders each widget into its place through a portal.
//! The round trip first; each other widget when the reader comes near it, when a link points
//! at it, before printing, or one per task once the page is idle. Each of those only adds to
//! one set of slots; which widgets are built, and when the page is ready, derive from it.
//! The implementers' slots are another module's ([`crate::tools`]): wanting one loads that
//! module (idle time never does), and the page is ready once it has drawn them too.

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
    elements, AttackBench, EmbedDocs, EmbedGlossary, LaterParts, LinkNotes, Quiz, ReadTheCode,
    RoundTrip, RulesExplorer, RunItRaw, TaskConsole, TicketInspector,
};
use crate::state::embed::{parse_query, Query};
use crate::state::link::{Link, LinkStoreFields, Widget};
use crate::state::mounts::{Module, Slot, Slots, TOOLS_ATTR, TOOLS_READY};
use crate::state::scorm;
use crate::state::stage::trace_of;

/// The attribute on `<html>` that says every widget is in its place: "ready".
pub const STATE_ATTR: &str = "data-widgets";
/// How long after start-up the widgets nobody has come near yet are mounted anyway.
const IDLE_MS: u64 = 1500;

/// The element a slot renders into (`data-mount="…"`).
pub(crate) fn mount_point(id: &str) -> Option<web_sys::Element> {
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
        Slot::Widget(Widget::Task) => view! { <TaskConsole/> }.into_any(),
        Slot::Widget(Widget::Raw) => view! { <RunItRaw/> }.into_any(),
        Slot::Widget(Widget::Code) => view! { <ReadTheCode/> }.into_any(),
        Slot::Widget(Widget::Rules) => view! { <RulesExplorer/> }.into_any(),
        Slot::Widget(Widget::Quiz) => view! { <Quiz/> }.into_any(),
        Slot::EmbedDocs => view! { <EmbedDocs/> }.into_any(),
        // The tools' module renders these (Slot::module).
        Slot::Widget(Widget::Audit | Widget::Live) => ().into_any(),
    }
}

/// Entry point: mounts the page's one root.
pub fn start() {
    crate::components::mark("start");
    crate::panic_panel::install();
    if let Some(html) = document().document_element() {
        // index.html stops waiting to report a failed start.
        let _ = html.set_attribute("data-started", "");
    }
    let query = parse_query(&location_search());
    leptos::mount::mount_to_body(move || view! { <App query=query/> });
    crate::components::mark("started");
    // The prose's glosses in a task of their own: the first one (instantiating the module,
    // mounting the root) is long enough on a slow phone.
    set_timeout(crate::components::gloss_the_page, std::time::Duration::ZERO);
}

/// The page's root: the link, the notes on it, and which widgets are in their place.
#[component]
fn App(query: Query) -> impl IntoView {
    crate::components::mark("app");
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
    // Each slot's first render, on the performance timeline.
    Effect::new(move |was: Option<Slots>| {
        let now = mounted.get();
        for slot in now.iter().filter(|s| !was.is_some_and(|w| w.contains(*s))) {
            crate::components::mark(&format!("mount:{}", slot.id()));
        }
        now
    });
    let link = page_link(initial, move |n, w| {
        notes.set(n);
        wanted.update(|s| *s = s.with(Slot::Widget(w)));
        request_animation_frame(move || scroll_to(w));
    });

    provide_context(link);
    // A course platform, if the page runs inside one; and the widgets worked through.
    lms::connect();
    tell_progress(link);
    let later = RwSignal::new(0u32);
    provide_context(LaterParts(later));
    let whole = match query.embed {
        Some(w) => Slots::of(Slot::Widget(w)),
        None => Slots::of_module(Module::Lesson),
    };
    let tools = tools_on_demand(mounted);
    mark_ready(mounted, later, tools, whole);

    match query.embed {
        Some(w) => {
            // One widget alone (index.html hid the rest before the first paint).
            wanted.set(whole);
            open_fold(w);
            post_height(w);
        }
        None => start_page(link, wanted, near, settled, target),
    }

    view! {
        {query.embed.and_then(|w| mount_point("glossary").map(|el| view! { <Portal mount=el><EmbedGlossary widget=w/></Portal> }))}
        {mount_point("notes").map(|el| view! { <Portal mount=el><LinkNotes notes=notes/></Portal> })}
        {query.embed.is_none().then(|| mount_point("theme").map(|el| view! { <Portal mount=el><ThemeToggle/></Portal> }))}
        <For each=move || mounted.get().only(Module::Lesson).iter() key=|slot| *slot let:slot>
            {mount_point(slot.id()).map(|el| view! { <Portal mount=el>{view_for(slot)}</Portal> })}
        </For>
        {move || match tools.get() {
            Tools::Failed(why) => mounted.get().only(Module::Tools).iter().filter_map(|slot| {
                let why = why.clone();
                mount_point(slot.id()).map(|el| view! {
                    <Portal mount=el>
                        <p class="note" role="alert" data-testid="tools-failed">{tools_failed(&why)}</p>
                    </Portal>
                })
            }).collect_view().into_any(),
            _ => ().into_any(),
        }}
    }
}

/// Tells a parent window that listens which widgets were worked through: each one the link
/// has pointed at, told as the list grows.
fn tell_progress(link: Store<Link>) {
    let worked = StoredValue::new(Vec::<&'static str>::new());
    Effect::new(move |_| {
        let w = link.widget().get().id();
        if !worked.with_value(|ws| ws.contains(&w)) {
            worked.update_value(|ws| ws.push(w));
            worked.with_value(|ws| lms::tell_parent(&scorm::progress_message(ws), false));
        }
    });
}

/// Marks the page ready (for tests and the bench) once everything it should show is in:
/// `whole` mounted, no part waiting for its task, the tools loaded or failed if asked for.
fn mark_ready(mounted: Memo<Slots>, later: RwSignal<u32>, tools: RwSignal<Tools>, whole: Slots) {
    let ready = Memo::new(move |_| {
        let m = mounted.get();
        m.covers(whole)
            && later.get() == 0
            && (m.only(Module::Tools).is_empty()
                || matches!(tools.get(), Tools::Ready | Tools::Failed(_)))
    });
    Effect::new(move |_| {
        if ready.get() {
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute(STATE_ATTR, "ready");
            }
        }
    });
}

/// The whole page: the linked widget first, the rest in turn, each section as the reader
/// comes near, everything for printing.
fn start_page(
    link: Store<Link>,
    wanted: RwSignal<Slots>,
    near: RwSignal<Slots>,
    settled: RwSignal<bool>,
    target: Widget,
) {
    if let Some(html) = document().document_element() {
        // An embed of nothing known shows the whole page (its note says why).
        let _ = html.remove_attribute("data-embed");
    }
    // Watching for the reader coming near starts once the round trip and the linked
    // widget are in (until then, nearness would not count): not in the first task.
    let owner = Owner::current();
    let observe = move || {
        let watch = || {
            for slot in Slot::ALL {
                on_approach(slot, near);
            }
        };
        match owner {
            Some(o) => o.with(watch),
            None => watch(),
        }
    };
    let before_print = window_event_listener(leptos::ev::beforeprint, move |_| {
        wanted.set(Slots::all());
        open_details();
    });
    on_cleanup(move || before_print.remove());
    start_in_turn(link, wanted, settled, target, observe);
}

/// Where the implementers' tools are: not asked for, on their way, drawn, or failed to load
/// (with the browser's reason).
#[derive(Clone, Debug, PartialEq)]
enum Tools {
    NotAsked,
    Loading,
    Ready,
    Failed(String),
}

/// The sentence shown in the tools' places when their module did not arrive.
fn tools_failed(why: &str) -> String {
    format!("The implementers' tools could not be loaded ({why}). The rest of the page works without them; reload the page to try again.")
}

/// Loads the tools' module the first time one of its slots is mounted, by the loader in
/// index.html (`mrtrLabLoadTools`, which names its files for the service worker too).
fn tools_on_demand(mounted: Memo<Slots>) -> RwSignal<Tools> {
    let state = RwSignal::new(Tools::NotAsked);
    let heard = window_event_listener_untyped(TOOLS_READY, move |_| state.set(Tools::Ready));
    on_cleanup(move || heard.remove());
    Effect::new(move |_| {
        if mounted.get().only(Module::Tools).is_empty()
            || state.with_untracked(|s| *s != Tools::NotAsked)
        {
            return;
        }
        state.set(Tools::Loading);
        crate::components::mark("tools:load");
        let set_attr = |v: &str| {
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute(TOOLS_ATTR, v);
            }
        };
        set_attr("loading");
        let failed = move |why: String| {
            set_attr("failed");
            state.set(Tools::Failed(why));
        };
        let loader = js_sys::Reflect::get(&window(), &"mrtrLabLoadTools".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let Some(promise) = loader
            .and_then(|f| f.call0(&wasm_bindgen::JsValue::NULL).ok())
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
        else {
            failed("the page has no loader for them".to_owned());
            return;
        };
        leptos::task::spawn_local(async move {
            if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
                let why = js_sys::Reflect::get(&e, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "a file did not arrive".to_owned());
                failed(why);
            }
        });
    });
    state
}

/// Start-up in tasks of its own, so the page answers input in between (and no one task is
/// long on a slow phone): the round trip's trace, then its widget, then the linked widget
/// (landed on), then watching for the reader coming near, then what waits for the reader; once the page is idle, the rest, one per task. The timers only set signals.
fn start_in_turn(
    link: Store<Link>,
    wanted: RwSignal<Slots>,
    settled: RwSignal<bool>,
    target: Widget,
    observe: impl FnOnce() + 'static,
) {
    let (knobs, ending) = link.with_untracked(|l| (l.knobs, l.ending));
    let add = move |w: Widget| wanted.update(|s| *s = s.with(Slot::Widget(w)));
    in_turn(vec![
        Box::new(move || {
            crate::components::mark("trace");
            trace_of(knobs, ending);
        }),
        Box::new(move || add(Widget::RoundTrip)),
        Box::new(move || {
            add(target);
            if target != Widget::RoundTrip {
                request_animation_frame(move || scroll_to(target));
            }
            settled.set(true);
        }),
        Box::new(move || {
            observe();
            set_timeout(
                move || add_rest_in_turn(wanted),
                std::time::Duration::from_millis(IDLE_MS),
            );
        }),
    ]);
}

/// Runs each step in a task of its own, in order.
fn in_turn(mut steps: Vec<Box<dyn FnOnce()>>) {
    if steps.is_empty() {
        return;
    }
    let step = steps.remove(0);
    set_timeout(
        move || {
            step();
            in_turn(steps);
        },
        std::time::Duration::ZERO,
    );
}

/// Adds the first slot not yet wanted, then the next in a task of its own, until all are.
fn add_rest_in_turn(wanted: RwSignal<Slots>) {
    // The lesson's slots only: the tools' module is loaded when asked for, never on idle.
    let lesson = Slots::of_module(Module::Lesson);
    let Some(Some(slot)) = wanted.try_with_untracked(|w| w.next_missing(lesson)) else {
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
