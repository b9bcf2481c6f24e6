use leptos::prelude::*;

use crate::demo::{proof_run, CheckRow, RetryOutcome};

/// bob's deploy, run through the real engines: the honest retry and the edited one.
#[component]
pub fn Proof() -> impl IntoView {
    let run = proof_run();
    view! {
        <section class="card" aria-labelledby="proof-h">
            <h2 id="proof-h">"One round trip, computed just now"</h2>
            {match run {
                Ok(run) => view! {
                    <p>
                        "bob asked to deploy to staging. The server answered "<code>"input_required"</code>
                        " with this ticket:"
                    </p>
                    <pre class="ticket" data-testid="ticket">{run.ticket}</pre>
                    <div class="retries">
                        <Retry title="The honest retry" outcome=run.honest testid="honest"/>
                        <Retry title="The same retry, ticket edited to prod" outcome=run.edited testid="edited"/>
                    </div>
                }.into_any(),
                Err(e) => view! {
                    <p class="error" role="alert">"The core could not run the demo: "{e}</p>
                }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Retry(title: &'static str, outcome: RetryOutcome, testid: &'static str) -> impl IntoView {
    let verdict = if outcome.accepted {
        "Accepted".to_owned()
    } else {
        format!(
            "Refused at the {} check",
            outcome.first_failure.unwrap_or("first")
        )
    };
    let class = if outcome.accepted {
        "verdict ok"
    } else {
        "verdict refused"
    };
    view! {
        <article class="retry" data-testid=testid>
            <h3>{title}</h3>
            <p class=class data-testid="verdict">{verdict}</p>
            <ol class="checks">
                {outcome.checks.into_iter().map(|c: CheckRow| view! {
                    <li class=format!("check {}", c.word.replace(' ', "-"))>
                        <span class="symbol" aria-hidden="true">{c.symbol}</span>
                        <span class="question">{c.question}</span>
                        <span class="word">{c.word}</span>
                        {c.reason.map(|r| view! { <span class="reason">{r}</span> })}
                    </li>
                }).collect_view()}
            </ol>
            <p class="answer">"Server answer: "<q data-testid="answer">{outcome.answer}</q></p>
        </article>
    }
}
