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

/// One POST, its answer and its body bounded by [`TIMEOUT_MS`]. A refused read is told apart
/// from no server at all by a second request the page may not read (`no-cors`, no token, no
/// body).
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
    // One deadline for the whole answer, its body included: a server that sends its headers
    // and then stalls would otherwise hold the round trip (and the audit) for ever.
    let deadline = Deadline::start(&init, TIMEOUT_MS);
    let res = fetched(url, &init).await;
    let timed_out = deadline.fired();
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
            deadline.clear();
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
            let deadline = Deadline::start(&probe, 3000);
            let answered = fetched(url, &probe).await.is_some();
            deadline.clear();
            if answered {
                Reply::Blocked
            } else {
                Reply::Unreachable
            }
        }
    }
}

/// The fetch's response, or nothing when it failed (refused, unreachable, aborted).
async fn fetched(url: &str, init: &web_sys::RequestInit) -> Option<web_sys::Response> {
    JsFuture::from(window().fetch_with_str_and_init(url, init))
        .await
        .ok()
        .and_then(|r| r.dyn_into::<web_sys::Response>().ok())
}

/// A clock that aborts a request (its response and its body) once `ms` have passed, unless
/// cleared first; it says whether it was the one that stopped it.
struct Deadline {
    fired: Rc<Cell<bool>>,
    timer: Option<TimeoutHandle>,
}

impl Deadline {
    fn start(init: &web_sys::RequestInit, ms: u32) -> Deadline {
        let ctrl = web_sys::AbortController::new().ok();
        if let Some(c) = &ctrl {
            init.set_signal(Some(&c.signal()));
        }
        let fired = Rc::new(Cell::new(false));
        let timer = {
            let fired = fired.clone();
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
        Deadline { fired, timer }
    }

    fn fired(&self) -> bool {
        self.fired.get()
    }

    fn clear(self) {
        if let Some(t) = self.timer {
            t.clear();
        }
    }
}
