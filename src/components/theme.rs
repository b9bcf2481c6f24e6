//! Light, dark, or the system's choice: `data-theme` on `<html>`, remembered in this browser.
//! (index.html applies the same rule before the first paint, with the same storage key.)

use leptos::prelude::*;

use crate::state::embed::Theme;

const THEME_KEY: &str = "mrtr-lab.theme";

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// Sets `data-theme` on `<html>`; `None` follows the operating system.
pub fn apply(theme: Option<Theme>) {
    let Some(root) = document().document_element() else {
        return;
    };
    let _ = match theme {
        Some(t) => root.set_attribute("data-theme", t.id()),
        None => root.remove_attribute("data-theme"),
    };
}

/// The theme the reader chose last time, if any.
pub fn remembered() -> Option<Theme> {
    storage()
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten())
        .and_then(|t| Theme::from_id(&t))
}

/// A button that cycles auto → light → dark and remembers the choice.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    // Held here too: without storage (blocked, or a private window) the toggle still cycles.
    let current = RwSignal::new(remembered());
    let next = move |_| {
        let n = match current.get_untracked() {
            None => Some(Theme::Light),
            Some(Theme::Light) => Some(Theme::Dark),
            Some(Theme::Dark) => None,
        };
        apply(n);
        if let Some(s) = storage() {
            let _ = match n {
                Some(t) => s.set_item(THEME_KEY, t.id()),
                None => s.remove_item(THEME_KEY),
            };
        }
        current.set(n);
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
