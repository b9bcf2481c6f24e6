use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::audit_report::{parse, sample, ReportView, RowView};
use crate::state::link::{Link, Widget};

/// Where the report on show came from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    Nothing,
    /// Pasted or opened by the reader: read here, never sent anywhere.
    Reader(String),
}

/// "Audit your server": an mrtr-audit report read as a report card, each failing row linked
/// to the widget that shows that misuse; or the report of a weak server, made on the spot.
#[component]
pub fn AuditCard(link: RwSignal<Link>) -> impl IntoView {
    let source = RwSignal::new(Source::Nothing);
    let sample_on = Memo::new(move |_| link.with(|l| l.audit_sample));
    // Made only when asked for: it runs the whole audit against a simulated server.
    let sample_text = Memo::new(move |_| sample_on.get().then(sample));
    let report = Memo::new(move |_| -> Option<Result<ReportView, String>> {
        match (source.get(), sample_text.get()) {
            (Source::Reader(t), _) => Some(parse(&t)),
            (Source::Nothing, Some(t)) => Some(parse(&t)),
            (Source::Nothing, None) => None,
        }
    });
    let show_sample = move |_| {
        source.set(Source::Nothing);
        link.update(|l| {
            l.audit_sample = true;
            l.widget = Widget::Audit;
        });
    };
    let read = move |text: String| {
        source.set(Source::Reader(text));
        link.update(|l| {
            l.audit_sample = false;
            l.widget = Widget::Audit;
        });
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
            read(format!("{{\"too big\": {}}}", file.size()));
            return;
        }
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            read(text);
        });
    };
    view! {
        <section class="card widget audit" id="audit" aria-labelledby="audit-h" data-testid="audit">
            <h2 id="audit-h">"Audit your server"</h2>
            <p class="intro">"The misuses on this page are not only for the lab's own server. "<code>"mrtr-audit"</code>" points every one of them at an MCP server you run: it finds a tool that answers with a ticket, then edits, steals, stretches and replays that ticket, one row per misuse, and says which the server refused. Run it, then open its report here: the page reads it in your browser and sends it nowhere."</p>
            <pre class="json small command" tabindex="0">"mrtr-audit http://127.0.0.1:3000/mcp --token bob-token --other-token alice-token --json > report.json"</pre>
            <div class="audit-input">
                <label class="file">"Open a report "
                    <input type="file" accept="application/json,.json" data-testid="audit-file" on:change=on_file/>
                </label>
                <button type="button" data-testid="audit-sample" on:click=show_sample>"Show the report of a weak server"</button>
            </div>
            <details class="paste">
                <summary>"Or paste a report"</summary>
                <textarea rows="6" aria-label="An mrtr-audit report, as JSON" data-testid="audit-paste"
                    on:input=move |ev| read(event_target_value(&ev))></textarea>
            </details>
            {move || report.get().map(|r| match r {
                Err(e) => view! { <p class="feedback refused" role="alert" data-testid="audit-error">{e}</p> }.into_any(),
                Ok(r) => card(r).into_any(),
            })}
        </section>
    }
}

fn card(r: ReportView) -> impl IntoView {
    let ok = r.ok();
    let summary = format!(
        "{} passed, {} failed, {} skipped, in {} requests",
        r.count("pass"),
        r.count("fail"),
        r.count("skipped"),
        r.requests
    );
    let group = |status: &str| -> Vec<RowView> {
        r.rows
            .iter()
            .filter(|x| x.status == status)
            .cloned()
            .collect()
    };
    let (failed, passed, skipped) = (group("fail"), group("pass"), group("skipped"));
    view! {
        <div class="report" data-testid="audit-report">
            <p class=if ok { "verdict ok" } else { "verdict refused" } role="status" data-testid="audit-verdict">
                {if ok { "Passes: no required row failed. " } else { "Fails: a required row failed. " }}{summary}
            </p>
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

fn rows(list: Vec<RowView>) -> impl IntoView {
    list.into_iter()
        .map(|row| {
            let title = row
                .row
                .map(|x| x.title.to_owned())
                .unwrap_or_else(|| format!("{} (a row this page does not know)", row.id));
            let level = row.row.map(|x| x.level.id()).unwrap_or("?");
            let href = (row.status == "fail").then(|| row.href()).flatten();
            view! {
                <li class=format!("audit-row {}", row.status) data-row=row.id.clone()>
                    <span class="symbol" aria-hidden="true">{row.symbol()}</span>
                    <span class="word">{row.status}</span>
                    <span class="question">{title}</span>
                    <span class="level">{level}</span>
                    <span class="reason">{row.evidence.clone()}</span>
                    {href.map(|h| view! { <a class="see" href=h>"See this misuse in the lab"</a> })}
                </li>
            }
        })
        .collect_view()
}
