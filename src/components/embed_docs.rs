use leptos::prelude::*;

use crate::state::embed::{snippet, widget_title};
use crate::state::link::Widget;

fn page_base() -> String {
    web_sys::window()
        .map(|w| {
            let l = w.location();
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// Sizes a preview to the height its embed posts, as the snippet's script does on a docs
/// page, so the preview shows the whole widget.
fn size_previews(e: web_sys::MessageEvent) {
    use wasm_bindgen::JsCast;
    let data = e.data();
    let field = |k: &str| js_sys::Reflect::get(&data, &k.into()).ok();
    if field("type").and_then(|t| t.as_string()).as_deref() != Some("mrtr-lab:height") {
        return;
    }
    let Some(height) = field("height").and_then(|h| h.as_f64()) else {
        return;
    };
    let Some(source) = e.source() else { return };
    let Ok(frames) = document().query_selector_all("iframe.preview") else {
        return;
    };
    for f in super::elements(frames) {
        let Ok(f) = f.dyn_into::<web_sys::HtmlIFrameElement>() else {
            continue;
        };
        if f.content_window()
            .is_some_and(|w| js_sys::Object::is(&w, &source))
        {
            // Whole pixels: an integer, so the page's module carries no float formatting.
            let h = format!("height: {}px", height.clamp(100.0, 20_000.0).ceil() as u32);
            let _ = web_sys::Element::set_attribute(&f, "style", &h);
        }
    }
}

/// For docs writers: each widget's iframe snippet, and a preview on demand.
#[component]
pub fn EmbedDocs() -> impl IntoView {
    let base = page_base();
    let listener = window_event_listener(leptos::ev::message, size_previews);
    on_cleanup(move || listener.remove());
    view! {
        <div class="embed-docs-body">
            <ul class="embeds">
                {Widget::ALL.into_iter().map(|w| {
                    let code = snippet(&base, w);
                    let preview = RwSignal::new(false);
                    // Each preview runs a whole copy of the app: made once, then only hidden
                    // and shown, so toggling never piles up copies waiting to be collected.
                    let made = Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || preview.get());
                    let src = format!("{base}?embed={}", w.id());
                    view! {
                        <li>
                            <h3>{widget_title(w)}</h3>
                            <pre class="json small snippet" tabindex="0" data-widget=w.id()>{code}</pre>
                            <button type="button" on:click=move |_| preview.update(|p| *p = !*p) aria-expanded=move || preview.get().to_string()>
                                {move || if preview.get() { "Hide preview" } else { "Show preview" }}
                            </button>
                            <Show when=move || made.get()>
                                <iframe class="preview" src=src.clone() title=widget_title(w) hidden=move || !preview.get()></iframe>
                            </Show>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </div>
    }
}
