use leptos::prelude::*;

/// What could not be used from the link or query (nothing when everything could).
#[component]
pub fn LinkNotes(
    /// The notes, one per setting that could not be used.
    notes: RwSignal<Vec<String>>,
) -> impl IntoView {
    view! {
        <Show when=move || notes.with(|n| !n.is_empty())>
            <div class="note" role="status" data-testid="link-note">
                <strong>"Some of this link could not be used, so those settings start from the beginning: "</strong>
                {move || notes.with(|n| n.join("; "))}
                <button type="button" class="link-button" on:click=move |_| notes.set(Vec::new())>"Dismiss"</button>
            </div>
        </Show>
    }
}
