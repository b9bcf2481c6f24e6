//! A word glossed where a widget first uses it: a hover/focus note, and the same words as its
//! description for screen readers (so a label's name stays short). The note is the page's own
//! definition of the word (`state::glossary`, read out of index.html's word lists).

use leptos::either::Either;
use leptos::prelude::*;

use crate::state::glossary;
use crate::state::link::Widget;

/// `word` (the term itself unless given) with the page's definition of `term` as its note.
#[component]
pub fn Gloss(term: &'static str, #[prop(optional)] word: Option<&'static str>) -> impl IntoView {
    let word = word.unwrap_or(term);
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
    let tip = glossary::tip(term);
    view! {
        <span class="field gloss" tabindex="0" data-tip=tip.clone() aria-describedby=id.clone()>{word}</span>
        <span hidden id=id>{tip}</span>
    }
}

/// The page's own glossed words (`data-term` in index.html) get the same note, once the app
/// runs: index.html names the term and never repeats its definition.
pub fn gloss_the_page() {
    let Ok(all) = document().query_selector_all("[data-term]") else {
        return;
    };
    for el in super::elements(all) {
        if let Some(term) = el.get_attribute("data-term") {
            if glossary::definition(&term).is_some() {
                let _ = el.set_attribute("data-tip", &glossary::tip(&term));
            }
        }
    }
}

/// An embedded widget's words, drawn from the page's own definitions (compiled from
/// index.html's word lists): an embed is cut off from the page's glossary, so it carries the
/// words its widget uses, in the order a reader meets them.
#[component]
pub fn EmbedGlossary(widget: Widget) -> impl IntoView {
    let words = glossary::terms(widget).iter().filter_map(|term| {
        let parts = glossary::parts(term)?.map(|(part, code)| {
            if code {
                Either::Left(view! { <code>{part}</code> })
            } else {
                Either::Right(part)
            }
        });
        Some(view! { <dt>{*term}</dt><dd>{parts.collect_view()}</dd> })
    });
    view! { <dl class="words">{words.collect_view()}</dl> }
}
