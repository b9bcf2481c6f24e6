//! Light, dark, or the system's choice: `data-theme` on `<html>`, remembered in this browser
//! (leptos-use's storage hook: a choice made in another tab is taken here too).
//! The choice at start-up (`&theme=`, else the stored one) is applied by index.html before
//! the first paint, the one place that rule is written; this module only changes it.

use leptos::prelude::*;
use leptos_use::storage::use_local_storage;

use crate::state::embed::{Theme, ThemeCodec, THEME_KEY};

/// Sets `data-theme` on `<html>`; `None` follows the operating system.
fn apply(theme: Option<Theme>) {
    let Some(root) = document().document_element() else {
        return;
    };
    let _ = match theme {
        Some(t) => root.set_attribute("data-theme", t.id()),
        None => root.remove_attribute("data-theme"),
    };
}

/// A button that cycles auto → light → dark and remembers the choice.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    // The hook holds the choice in a signal too: without storage (blocked, or a private
    // window) the toggle still cycles.
    let (current, choose, forget) = use_local_storage::<Option<Theme>, ThemeCodec>(THEME_KEY);
    // A choice made in another tab is applied here (the first read is what start-up applied).
    Effect::watch(move || current.get(), |t, _, _| apply(*t), false);
    let next = move |_| {
        let n = match current.get_untracked() {
            None => Some(Theme::Light),
            Some(Theme::Light) => Some(Theme::Dark),
            Some(Theme::Dark) => None,
        };
        apply(n);
        match n {
            Some(_) => choose.set(n),
            // Following the system again leaves nothing stored.
            None => forget(),
        }
    };
    view! {
        <button type="button" class="theme-toggle" data-testid="theme-toggle" on:click=next>
            {move || match current.get() {
                None => "Theme: follows your system",
                Some(Theme::Light) => "Theme: light",
                Some(Theme::Dark) => "Theme: dark",
            }}
        </button>
    }
}
