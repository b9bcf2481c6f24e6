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

/// For docs writers: each widget's iframe snippet, and a preview on demand.
#[component]
pub fn EmbedDocs() -> impl IntoView {
    let base = page_base();
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
