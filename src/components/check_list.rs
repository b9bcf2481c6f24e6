use leptos::prelude::*;
use mrtr_core::Verdict;

use crate::markup::check_list_inner;

/// A verdict: the headline, then each check as symbol, question, word and reason. The markup
/// is the one the first screen draws too.
#[component]
pub fn CheckList(verdict: Verdict, #[prop(optional)] by: Option<&'static str>) -> impl IntoView {
    view! { <div class="check-list" inner_html=check_list_inner(&verdict, by)></div> }
}
