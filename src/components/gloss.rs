//! A word glossed where a widget first uses it: the transcript's hover/focus note, and the
//! same words as its description for screen readers (so a label's name stays short).

use leptos::prelude::*;

#[component]
pub fn Gloss(word: &'static str, tip: &'static str) -> impl IntoView {
    let id: String = word
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let id = format!("gloss-{id}");
    view! {
        <span class="field gloss" tabindex="0" data-tip=tip aria-describedby=id.clone()>{word}</span>
        <span hidden id=id>{tip}</span>
    }
}
