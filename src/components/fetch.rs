//! The page's one way to call a server the reader names: a `fetch` POST bounded by a timeout,
//! whose failure is told apart (blocked by CORS, or nothing there). The round trip, the
//! misuse moves and the audit all send through it.

use std::cell::Cell;
use std::rc::Rc;

use gloo_net::http::{Headers, Request};
use leptos::prelude::*;
use web_sys::RequestMode;

use crate::state::live::{Reply, REPLICA_HEADER, TIMEOUT_MS};

/// The page's origin, as a server's `--cors-origin` must name it.
pub fn page_origin() -> String {
    window().location().origin().unwrap_or_default()
}

/// One POST, its answer and its body bounded by [`TIMEOUT_MS`]. A refused read is told apart
/// from no server at all by a second request the page may not read (`no-cors`, no token, no
/// body).
pub async fn post(url: &str, body: &str, hs: Vec<(String, String)>) -> Reply {
    // One deadline for the whole answer, its body included: a server that sends its headers
    // and then stalls would otherwise hold the round trip (and the audit) for ever.
    let deadline = Deadline::start(TIMEOUT_MS);
    // Headers set one by one, each refusal dropped: gloo-net's own `header` throws on a value
    // a header cannot carry (the form refuses such tokens first; this never throws).
    let raw = Headers::new().into_raw();
    for (k, v) in &hs {
        let _ = raw.set(k, v);
    }
    let request = Request::post(url)
        .mode(RequestMode::Cors)
        .headers(Headers::from_raw(raw))
        .abort_signal(deadline.signal().as_ref())
        .body(body);
    let res = match request {
        Ok(r) => r.send().await.ok(),
        Err(_) => None,
    };
    let timed_out = deadline.fired();
    match res {
        Some(resp) => {
            let head = |n: &str| resp.headers().get(n);
            let (status, content_type, replica) = (
                resp.status(),
                head("content-type").unwrap_or_default(),
                head(REPLICA_HEADER),
            );
            let body = resp.text().await.ok();
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
            let deadline = Deadline::start(3000);
            let answered = Request::get(url)
                .mode(RequestMode::NoCors)
                .abort_signal(deadline.signal().as_ref())
                .send()
                .await
                .is_ok();
            deadline.clear();
            if answered {
                Reply::Blocked
            } else {
                Reply::Unreachable
            }
        }
    }
}

/// A clock that aborts a request (its response and its body) once `ms` have passed, unless
/// cleared first; it says whether it was the one that stopped it.
struct Deadline {
    ctrl: Option<web_sys::AbortController>,
    fired: Rc<Cell<bool>>,
    timer: Option<TimeoutHandle>,
}

impl Deadline {
    fn start(ms: u32) -> Deadline {
        let ctrl = web_sys::AbortController::new().ok();
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
        Deadline { ctrl, fired, timer }
    }

    /// The signal a request listens to, to be stopped by this clock.
    fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.ctrl.as_ref().map(|c| c.signal())
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
