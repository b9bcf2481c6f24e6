//! The chrome both modules share: the note on a link that could not be fully read, and an
//! embedded widget's frame (no page around it, its height posted to the embedding page).

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::link::Widget;

/// What could not be used from the link or query, until the reader dismisses it.
#[component]
pub fn LinkNotes(notes: RwSignal<Vec<String>>) -> impl IntoView {
    move || {
        (!notes.with(Vec::is_empty)).then(|| view! {
            <div class="note" role="status" data-testid="link-note">
                <strong>"Some of this link could not be used, so those settings start from the beginning: "</strong>
                {move || notes.get().join("; ")}
                <button type="button" class="link-button" on:click=move |_| notes.set(Vec::new())>"Dismiss"</button>
            </div>
        })
    }
}

/// Tells the embedding page how tall this document is, whenever that changes.
fn post_height(widget: Widget) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let Some(doc) = window.document() else { return };
    let Some(root) = doc.document_element() else {
        return;
    };
    let target = root.clone();
    let send = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        let msg = format!(
            r#"{{"type":"mrtr-lab:height","widget":"{}","height":{}}}"#,
            widget.id(),
            target.scroll_height()
        );
        if let Ok(v) = js_sys::JSON::parse(&msg) {
            let _ = parent.post_message(&v, "*");
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(send.as_ref().unchecked_ref()) {
        observer.observe(&root);
        // Lives as long as the page: an embed never unmounts.
        std::mem::forget(observer);
    }
    send.forget();
}

/// One widget alone, for an iframe: no page chrome, a credit, and its height posted out.
#[component]
pub fn Embedded(widget: Widget, notes: RwSignal<Vec<String>>, children: Children) -> impl IntoView {
    post_height(widget);
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-embed", widget.id());
    }
    view! {
        <main id="main" class="embedded" data-testid="embedded">
            <LinkNotes notes=notes/>
            {children()}
            <p class="embed-credit"><a href="./" target="_blank" rel="noopener">"MRTR Lab"</a>": computed live by a real MCP server and client."</p>
        </main>
    }
}
