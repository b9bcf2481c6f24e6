//! The page: index.html holds the prose and a mount point per widget; this mounts the
//! widgets into them. The round trip first; each other widget when the reader comes near it,
//! when a link points at it, before printing, or one per task once the page is idle. One
//! signal holds the deep link for all of them.

use leptos::prelude::*;
use leptos_use::{use_intersection_observer_with_options, UseIntersectionObserverOptions};
use wasm_bindgen::JsCast;

use crate::components::page_link::{location_hash, location_search, page_link, scroll_to};
use crate::components::theme::{self, ThemeToggle};
use crate::components::{
    elements, AttackBench, AuditCard, EmbedDocs, LinkNotes, Quiz, ReadTheCode, RoundTrip,
    RulesExplorer, RunItRaw, TicketInspector,
};
use crate::state::embed::parse_query;
use crate::state::link::{Link, Widget};
use crate::state::stage::trace_of;

/// The mount point of the embed docs, the one that is not a widget.
pub const EMBED_DOCS: &str = "embed";
/// The attribute on `<html>` that says every widget is in its place: "ready".
pub const STATE_ATTR: &str = "data-widgets";
/// How long after start-up the widgets nobody has come near yet are mounted anyway.
const IDLE_MS: u64 = 1500;

/// Every mount point, in page order.
fn mount_ids() -> Vec<&'static str> {
    Widget::ALL
        .into_iter()
        .map(Widget::id)
        .chain([EMBED_DOCS])
        .collect()
}

fn mount_point(id: &str) -> Option<web_sys::HtmlElement> {
    document()
        .query_selector(&format!("[data-mount=\"{id}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into().ok())
}

fn view_for(id: &str, link: RwSignal<Link>) -> AnyView {
    match Widget::from_id(id) {
        Some(Widget::RoundTrip) => view! { <RoundTrip link=link/> }.into_any(),
        Some(Widget::Ticket) => view! { <TicketInspector link=link/> }.into_any(),
        Some(Widget::Bench) => view! { <AttackBench link=link/> }.into_any(),
        Some(Widget::Raw) => view! { <RunItRaw link=link/> }.into_any(),
        Some(Widget::Code) => view! { <ReadTheCode link=link/> }.into_any(),
        Some(Widget::Rules) => view! { <RulesExplorer link=link/> }.into_any(),
        Some(Widget::Quiz) => view! { <Quiz/> }.into_any(),
        Some(Widget::Audit) => view! { <AuditCard link=link/> }.into_any(),
        None => view! { <EmbedDocs/> }.into_any(),
    }
}

/// The page's handles: the link, and which mount points have their widget.
#[derive(Clone, Copy)]
struct Page {
    link: RwSignal<Link>,
    mounted: StoredValue<Vec<&'static str>, LocalStorage>,
}

impl Page {
    /// Puts the widget `id` in its place (once).
    fn mount(self, id: &'static str) {
        if self.mounted.with_value(|m| m.contains(&id)) {
            return;
        }
        let Some(el) = mount_point(id) else { return };
        self.mounted.update_value(|m| m.push(id));
        // What index.html showed until now (a heading, "starting") makes way for the widget.
        el.set_inner_html("");
        let link = self.link;
        leptos::mount::mount_to(el, move || view_for(id, link)).forget();
        if self.mounted.with_value(|m| m.len()) == mount_ids().len() {
            mark_ready();
        }
    }

    fn mount_all(self) {
        for id in mount_ids() {
            self.mount(id);
        }
    }

    /// The rest, one per task, so the page answers input in between.
    fn mount_rest_in_turn(self) {
        if let Some(id) = mount_ids()
            .into_iter()
            .find(|id| !self.mounted.with_value(|m| m.contains(id)))
        {
            self.mount(id);
            let root = Owner::current();
            set_timeout(
                move || match &root {
                    Some(o) => o.with(|| self.mount_rest_in_turn()),
                    None => self.mount_rest_in_turn(),
                },
                std::time::Duration::ZERO,
            );
        }
    }

    /// After the round trip: the linked widget (landed on), then the others as the reader
    /// comes near them, before printing, or in turn once the page is idle.
    fn settle(self, target: Widget) {
        if target != Widget::RoundTrip {
            self.mount(target.id());
            request_animation_frame(move || scroll_to(target));
        }
        for id in mount_ids() {
            self.mount_on_approach(id);
        }
        let before_print = window_event_listener(leptos::ev::beforeprint, move |_| {
            self.mount_all();
            open_details();
        });
        on_cleanup(move || before_print.remove());
        let root = Owner::current();
        set_timeout(
            move || match &root {
                Some(o) => o.with(|| self.mount_rest_in_turn()),
                None => self.mount_rest_in_turn(),
            },
            std::time::Duration::from_millis(IDLE_MS),
        );
    }

    /// Mounts a widget when the reader comes within a screen of its section (the section:
    /// what is inside it is not laid out until then).
    fn mount_on_approach(self, id: &'static str) {
        let Some(el) = document().get_element_by_id(id) else {
            return;
        };
        use_intersection_observer_with_options(
            el,
            move |entries, _| {
                if entries.iter().any(|e| e.is_intersecting()) {
                    self.mount(id);
                }
            },
            UseIntersectionObserverOptions::default().root_margin("100% 0px".to_owned()),
        );
    }
}

/// Entry point: mounts the page's widgets into index.html.
pub fn start() {
    crate::panic_panel::install();
    // Effects need the executor before the first mount would set it up.
    let _ = any_spawner::Executor::init_wasm_bindgen();
    // The page's reactive root, kept for the page's life.
    let owner = Owner::new();
    owner.set();
    if let Some(html) = document().document_element() {
        // index.html stops waiting to report a failed start.
        let _ = html.set_attribute("data-started", "");
    }
    let query = parse_query(&location_search());
    theme::apply(query.theme.or_else(theme::remembered));
    let (initial, mut first_notes) = Link::parse(&location_hash());
    first_notes.extend(query.notes.iter().cloned());
    let notes = RwSignal::new(first_notes);
    let target = initial.widget;
    let mounted = StoredValue::new_local(Vec::new());
    // The link, with the reader's edits: notes on what could not be used, and the widget.
    let link_cell = StoredValue::new_local(None::<Page>);
    let link = page_link(initial, move |n, w| {
        notes.set(n);
        if let Some(page) = link_cell.get_value() {
            page.mount(w.id());
        }
        request_animation_frame(move || scroll_to(w));
    });
    let page = Page { link, mounted };
    link_cell.set_value(Some(page));
    if let Some(el) = mount_point("notes") {
        leptos::mount::mount_to(el, move || view! { <LinkNotes notes=notes/> }).forget();
    }

    match query.embed {
        Some(w) => {
            // One widget alone (index.html hid the rest before the first paint).
            page.mount(w.id());
            embed_glossary(w);
            mark_ready();
            post_height(w);
        }
        None => {
            if let Some(html) = document().document_element() {
                // An embed of nothing known shows the whole page (its note says why).
                let _ = html.remove_attribute("data-embed");
            }
            if let Some(el) = mount_point("theme") {
                leptos::mount::mount_to(el, ThemeToggle).forget();
            }
            // The rest in tasks of their own, so the page can answer input in between: the
            // round trip, then the linked widget, then what waits for the reader.
            // (Timers run outside the reactive owner: each re-enters it.)
            let root = owner.clone();
            let (knobs, ending) = link.with_untracked(|l| (l.knobs, l.ending));
            let next = |f: Box<dyn FnOnce()>| set_timeout(f, std::time::Duration::ZERO);
            next(Box::new(move || {
                // The trace first, then the widget that shows it, then the rest.
                trace_of(knobs, ending);
                next(Box::new(move || {
                    root.with(|| page.mount(Widget::RoundTrip.id()));
                    next(Box::new(move || root.with(|| page.settle(target))));
                }));
            }));
        }
    }
    std::mem::forget(owner);
}

/// Says on `<html>` that every widget the page shows is in its place: a task from now, after
/// the parts the widgets draw in the task after their mount.
fn mark_ready() {
    set_timeout(
        || {
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute(STATE_ATTR, "ready");
            }
        },
        std::time::Duration::ZERO,
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
    });
}
