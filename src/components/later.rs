//! The widgets below the first screen live in a second wasm module (`mrtr-lab-more`, see
//! `src/more.rs`), so the first screen is interactive after downloading only what it needs.
//! Here: the stand-ins it replaces, and when to fetch it — when the reader nears a stand-in,
//! when a link or an embed points at one of its widgets, before printing, or once the page
//! has been idle for a moment.

use std::cell::Cell;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The attribute on `<html>`: "loading" while the second module is on its way, "ready" once
/// every stand-in has its widget, "failed" if it could not be fetched.
pub const STATE_ATTR: &str = "data-widgets";

/// The stand-in id of the embed docs, the one stand-in that is not a widget.
pub const EMBED_DOCS: &str = "embed";

/// Where a widget of the second module goes. The stand-in holds the widget's id, so links
/// and the skip list land here even before it arrives.
#[component]
pub fn Later(id: &'static str, title: &'static str) -> impl IntoView {
    view! {
        <div class="later" data-later=id>
            <section class="card widget stand-in" id=id aria-busy="true">
                <h2>{title.trim_start_matches("MRTR Lab: ")}</h2>
                <p class="hint later-status" role="status">"Loading this widget…"</p>
            </section>
        </div>
    }
}

thread_local! {
    static REQUESTED: Cell<bool> = const { Cell::new(false) };
}

fn html() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}

/// Every stand-in says what went wrong; the first screen keeps working.
fn report_failure(why: &str) {
    web_sys::console::error_1(
        &format!("MRTR Lab: the widgets below could not be loaded: {why}").into(),
    );
    if let Some(h) = html() {
        let _ = h.set_attribute(STATE_ATTR, "failed");
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Ok(all) = doc.query_selector_all(".later-status") {
        for i in 0..all.length() {
            if let Some(n) = all.item(i) {
                n.set_text_content(Some(&format!(
                    "This widget could not be loaded ({why}). Reload the page to try again."
                )));
            }
        }
    }
}

/// Fetches and starts the second module, once. Its own start mounts the widgets.
pub fn load_more() {
    if REQUESTED.with(|r| r.replace(true)) {
        return;
    }
    if let Some(h) = html() {
        let _ = h.set_attribute(STATE_ATTR, "loading");
    }
    // index.html defines the loader, so the import resolves against the page's own folder.
    let loader = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("mrtrLoadMore")).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(loader) = loader else {
        report_failure("the page has no loader");
        return;
    };
    let promise = match loader.call0(&JsValue::NULL) {
        Ok(p) => js_sys::Promise::resolve(&p),
        Err(_) => {
            report_failure("the loader failed");
            return;
        }
    };
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "network error".into());
            report_failure(&why);
        }
    });
}

/// Fetches the second module when the reader comes within a screen of a stand-in, when the
/// page is about to print, or after the first screen has been idle for a moment.
pub fn load_when_needed() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(stand_ins) = doc.query_selector_all("[data-later]") else {
        return;
    };
    if stand_ins.length() == 0 {
        return;
    }
    let near = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let any = entries.iter().any(|e| {
            e.unchecked_into::<web_sys::IntersectionObserverEntry>()
                .is_intersecting()
        });
        if any {
            load_more();
        }
    });
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin("100% 0px");
    if let Ok(observer) =
        web_sys::IntersectionObserver::new_with_options(near.as_ref().unchecked_ref(), &options)
    {
        for i in 0..stand_ins.length() {
            if let Some(n) = stand_ins.item(i) {
                observer.observe(&n.unchecked_into());
            }
        }
        // Lives as long as the page; once loaded, further calls do nothing.
        std::mem::forget(observer);
    }
    near.forget();
    let print = window_event_listener(leptos::ev::beforeprint, |_| load_more());
    on_cleanup(move || print.remove());
    set_timeout(load_more, std::time::Duration::from_millis(1500));
}
