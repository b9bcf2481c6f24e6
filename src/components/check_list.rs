use leptos::prelude::*;
use mrtr_core::Verdict;

use crate::state::checks_view::{check_rows, headline};

/// A verdict: the headline, then each check as symbol, question, word and reason.
#[component]
pub fn CheckList(verdict: Verdict, #[prop(optional)] by: Option<&'static str>) -> impl IntoView {
    let accepted = verdict.accepted();
    let rows = check_rows(&verdict);
    view! {
        <div class="check-list">
            <p class=if accepted { "verdict ok" } else { "verdict refused" } data-testid="verdict">
                {by.map(|b| format!("{b}: "))}{headline(&verdict)}
            </p>
            <ol class="checks">
                {rows.into_iter().map(|c| view! {
                    <li class=format!("check {}", c.word.replace(' ', "-")) data-check=c.id>
                        <span class="symbol" aria-hidden="true">{c.symbol}</span>
                        <span class="question">{c.question}</span>
                        <span class="word">{c.word}</span>
                        {c.reason.map(|r| view! { <span class="reason">{r}</span> })}
                    </li>
                }).collect_view()}
            </ol>
        </div>
    }
}
