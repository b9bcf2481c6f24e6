//! The widgets below the first screen live in a second wasm module (`mrtr-lab-more`, see
//! `src/more.rs`), so the first screen is interactive after downloading only what it needs.
//! Here: when to fetch it — when the reader nears a stand-in, when a link or an embed points
//! at one of its widgets, before printing, or once the page has been idle for a moment.

use std::cell::Cell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::dom::{after, find_all, listen, root, window};
use crate::markup::STATE_ATTR;

thread_local! {
    static REQUESTED: Cell<bool> = const { Cell::new(false) };
}

/// Every stand-in says what went wrong; the first screen keeps working.
fn report_failure(why: &str) {
    web_sys::console::error_1(
        &format!("MRTR Lab: the widgets below could not be loaded: {why}").into(),
    );
    let Some(html) = root() else { return };
    let _ = html.set_attribute(STATE_ATTR, "failed");
    for n in find_all(&html, ".later-status") {
        n.set_text_content(Some(&format!(
            "This widget could not be loaded ({why}). Reload the page to try again."
        )));
    }
}

/// Fetches and starts the second module, once. Its own start mounts the widgets.
pub fn load_more() {
    if REQUESTED.with(|r| r.replace(true)) {
        return;
    }
    if let Some(h) = root() {
        let _ = h.set_attribute(STATE_ATTR, "loading");
    }
    // index.html defines the loader, so the import resolves against the page's own folder.
    let loader = window()
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
    let failed = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        let why = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "network error".into());
        report_failure(&why);
    });
    let _ = promise.catch(&failed);
    failed.forget();
}

/// Fetches the second module when the reader comes within a screen of a stand-in, when the
/// page is about to print, or after the first screen has been idle for a moment.
pub fn load_when_needed() {
    let Some(html) = root() else { return };
    let stand_ins = find_all(&html, "[data-later]");
    if stand_ins.is_empty() {
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
        for n in &stand_ins {
            observer.observe(n);
        }
        // Lives as long as the page; once loaded, further calls do nothing.
        std::mem::forget(observer);
    }
    near.forget();
    if let Some(w) = window() {
        listen(&w, "beforeprint", |_| load_more());
    }
    after(1500, load_more);
}
