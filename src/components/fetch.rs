//! The page's one way to call a server the reader names: a `fetch` POST bounded by a timeout,
//! whose failure is told apart (blocked by CORS, or nothing there). The round trip, the
//! misuse moves and the audit all send through it.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::state::live::{Reply, REPLICA_HEADER, TIMEOUT_MS};

/// The page's origin, as a server's `--cors-origin` must name it.
pub fn page_origin() -> String {
    window().location().origin().unwrap_or_default()
}

/// One POST, bounded by [`TIMEOUT_MS`]. A refused read is told apart from no server at all
/// by a second request the page may not read (`no-cors`, no token, no body).
pub async fn post(url: &str, body: &str, hs: Vec<(String, String)>) -> Reply {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_mode(web_sys::RequestMode::Cors);
    init.set_body(&JsValue::from_str(body));
    if let Ok(h) = web_sys::Headers::new() {
        for (k, v) in &hs {
            let _ = h.set(k, v);
        }
        init.set_headers(&h);
    }
    let (res, timed_out) = bounded(url, &init, TIMEOUT_MS).await;
    match res {
        Some(resp) => {
            let status = resp.status();
            let head = |n: &str| resp.headers().get(n).ok().flatten();
            let content_type = head("content-type").unwrap_or_default();
            let replica = head(REPLICA_HEADER);
            let body = match resp.text() {
                Ok(p) => JsFuture::from(p).await.ok().and_then(|v| v.as_string()),
                Err(_) => None,
            };
            match body {
                Some(body) => Reply::Answer {
                    status,
                    content_type,
                    replica,
                    body,
                },
                None => Reply::TimedOut,
            }
        }
        None if timed_out => Reply::TimedOut,
        None => {
            let probe = web_sys::RequestInit::new();
            probe.set_method("GET");
            probe.set_mode(web_sys::RequestMode::NoCors);
            match bounded(url, &probe, 3000).await {
                (Some(_), _) => Reply::Blocked,
                _ => Reply::Unreachable,
            }
        }
    }
}

/// A fetch abandoned after `ms`: the response, and whether it was the clock that stopped it.
async fn bounded(
    url: &str,
    init: &web_sys::RequestInit,
    ms: u32,
) -> (Option<web_sys::Response>, bool) {
    let ctrl = web_sys::AbortController::new().ok();
    if let Some(c) = &ctrl {
        init.set_signal(Some(&c.signal()));
    }
    let fired = Rc::new(Cell::new(false));
    let timer = {
        let (fired, ctrl) = (fired.clone(), ctrl.clone());
        set_timeout_with_handle(
            move || {
                fired.set(true);
                if let Some(c) = ctrl {
                    c.abort();
                }
            },
            std::time::Duration::from_millis(ms.into()),
        )
        .ok()
    };
    let res = JsFuture::from(window().fetch_with_str_and_init(url, init))
        .await
        .ok()
        .and_then(|r| r.dyn_into::<web_sys::Response>().ok());
    if let Some(t) = timer {
        t.clear();
    }
    (res, fired.get())
}
