use leptos::prelude::*;
use mrtr_audit::{levels_words, Status};
use wasm_bindgen::JsCast;

use super::page_link::{use_link, EditLink};
use mrtr_audit::{FileRow, ReportFile};

use crate::state::audit_report::{read as read_loaded, shows, Loaded, SAMPLE_BUTTON, SAMPLE_FILE};
use crate::state::link::{LinkStoreFields, Widget};

/// Where the report on show came from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    Nothing,
    /// Pasted or opened by the reader: read here, never sent anywhere.
    Reader(Loaded),
}

/// "Audit your server": an mrtr-audit report read as a report card, each failing row linked
/// to the widget that shows that misuse; or the report of a weak server, made on the spot.
#[component]
pub fn AuditCard() -> impl IntoView {
    let link = use_link();
    let source = RwSignal::new(Source::Nothing);
    let sample_on = link.audit_sample();
    // Fetched from beside the page only when asked for; a fetch that failed is tried again
    // when the reader asks again, a sample once read is kept.
    let sample_text = RwSignal::new(None::<Loaded>);
    let ask_again = Trigger::new();
    Effect::new(move |_| {
        ask_again.track();
        let have = sample_text.with_untracked(|t| matches!(t, Some(Loaded::Text(_))));
        if sample_on.get() && !have {
            sample_text.set(None);
            leptos::task::spawn_local(async move {
                let loaded = match fetch_text(SAMPLE_FILE).await {
                    Ok(t) => Loaded::Text(t),
                    Err(why) => Loaded::FetchFailed(why),
                };
                sample_text.set(Some(loaded));
            });
        }
    });
    let report = Memo::new(move |_| -> Option<Result<ReportFile, String>> {
        match (source.get(), sample_on.get(), sample_text.get()) {
            (Source::Reader(l), _, _) => Some(read_loaded(&l)),
            (Source::Nothing, true, Some(l)) => Some(read_loaded(&l)),
            (Source::Nothing, _, _) => None,
        }
    });
    let show_sample = move |_| {
        if sample_text.with_untracked(|t| matches!(t, Some(Loaded::FetchFailed(_)))) {
            ask_again.notify();
        }
        source.set(Source::Nothing);
        link.edit(Widget::Audit).audit_sample().set(true);
    };
    let read = move |loaded: Loaded| {
        source.set(Source::Reader(loaded));
        link.edit(Widget::Audit).audit_sample().set(false);
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        if file.size() > crate::state::audit_report::MAX_REPORT_BYTES as f64 {
            read(Loaded::TooLarge(file.size() as u64));
            return;
        }
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            read(Loaded::Text(text));
        });
    };
    view! {
        <div class="audit-body">
            <div class="audit-input">
                <label class="file">"Open a report "
                    <input type="file" accept="application/json,.json" data-testid="audit-file" on:change=on_file/>
                </label>
                <button type="button" data-testid="audit-sample" on:click=show_sample>{SAMPLE_BUTTON}</button>
            </div>
            <details class="paste">
                <summary>"Or paste a report"</summary>
                <textarea rows="6" aria-label="An mrtr-audit report, as JSON" data-testid="audit-paste"
                    on:input=move |ev| read(Loaded::Text(event_target_value(&ev)))></textarea>
            </details>
            {move || report.get().map(|r| match r {
                Err(e) => view! { <p class="feedback refused" role="alert" data-testid="audit-error">{e}</p> }.into_any(),
                Ok(r) => card(r).into_any(),
            })}
        </div>
    }
}

/// The report card: the verdict, then the failed rows open and linked to the widget that
/// shows each misuse, the passed and skipped ones folded.
pub(super) fn card(r: ReportFile) -> impl IntoView {
    let ok = r.ok();
    let verdict = r.verdict();
    let group = |status: Status| -> Vec<FileRow> {
        r.rows
            .iter()
            .filter(|x| x.status == status)
            .cloned()
            .collect()
    };
    let (failed, passed, skipped) = (
        group(Status::Fail),
        group(Status::Pass),
        group(Status::Skipped),
    );
    view! {
        <div class="report" data-testid="audit-report">
            <p class=if ok { "verdict ok" } else { "verdict refused" } role="status" data-testid="audit-verdict">
                {verdict}
            </p>
            <p class="hint" data-testid="audit-levels">{levels_words()}</p>
            <p class="hint">{format!("{} · tool {}", r.target, r.tool)}</p>
            // Failures first and open; what passed or was skipped folds away.
            {(!failed.is_empty()).then(|| view! { <ol class="audit-rows" aria-label="Failed rows">{rows(failed)}</ol> })}
            {(!passed.is_empty()).then(|| view! {
                <details class="audit-group"><summary>{format!("{} rows passed", passed.len())}</summary>
                    <ol class="audit-rows">{rows(passed)}</ol></details>
            })}
            {(!skipped.is_empty()).then(|| view! {
                <details class="audit-group"><summary>{format!("{} rows skipped, and why", skipped.len())}</summary>
                    <ol class="audit-rows">{rows(skipped)}</ol></details>
            })}
        </div>
    }
}

fn rows(list: Vec<FileRow>) -> impl IntoView {
    list.into_iter()
        .map(|row| {
            let title = row
                .row
                .map(|x| x.title.to_owned())
                .unwrap_or_else(|| format!("{} (a row this page does not know)", row.id));
            let level = row.row.map(|x| x.level.id()).unwrap_or("?");
            let href = (row.status == Status::Fail).then(|| shows(&row)).flatten();
            view! {
                <li class=format!("audit-row {}", row.status.id()) data-row=row.id.clone()>
                    <span class="symbol" aria-hidden="true">{row.status.symbol()}</span>
                    <span class="word">{row.status.word()}</span>
                    <span class="question">{title}</span>
                    <span class="level">{level}</span>
                    <span class="reason">{row.evidence.clone()}</span>
                    {href.map(|h| view! { <a class="see" href=h>"See this misuse in the lab"</a> })}
                </li>
            }
        })
        .collect_view()
}

/// A file from beside the page, as text.
async fn fetch_text(path: &str) -> Result<String, String> {
    let resp = gloo_net::http::Request::get(path)
        .send()
        .await
        .map_err(|_| "no answer".to_owned())?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    resp.text().await.map_err(|_| "not text".to_owned())
}
