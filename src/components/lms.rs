//! The course the page runs in, when there is one. A SCORM 1.2 LMS is found by the standard
//! discovery (an `API` object on a parent frame, or on the opener's chain, a few hops at
//! most); the page opens the session, marks the lesson started, hands the quiz the answers
//! the course kept, reports each answer, and finishes on `pagehide`. Each call's error code
//! is read back (`LMSGetLastError`): a failing LMS never breaks the page, it only changes one
//! quiet line in the quiz. A parent window that is not an LMS hears plain messages instead
//! (`state::scorm`). Without either, nothing here does anything.

use js_sys::{Array, Function, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::state::quiz::Progress;
use crate::state::scorm;

/// How many frames up (and how many up from the opener) the API is looked for.
const MAX_HOPS: usize = 7;

/// A SCORM 1.2 runtime's API object.
#[derive(Clone)]
struct ScormApi(Object);

impl ScormApi {
    /// Calls `name(args…)`, then asks the LMS whether it worked. The LMS's own words for a
    /// failure, or "the LMS has no …" when it lacks the function.
    fn call(&self, name: &str, args: &[&str]) -> Result<String, String> {
        let out = self.raw(name, args)?;
        let code = self.raw("LMSGetLastError", &[]).unwrap_or_default();
        if code.is_empty() || code == "0" {
            return Ok(out);
        }
        let words = self.raw("LMSGetErrorString", &[&code]).unwrap_or_default();
        Err(format!(
            "{name} answered error {code}{}",
            if words.is_empty() {
                String::new()
            } else {
                format!(", {words}")
            }
        ))
    }

    fn raw(&self, name: &str, args: &[&str]) -> Result<String, String> {
        let f = Reflect::get(&self.0, &JsValue::from_str(name))
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or_else(|| format!("the LMS has no {name}"))?;
        let list: Array = args.iter().map(|a| JsValue::from_str(a)).collect();
        let out = f
            .apply(&self.0, &list)
            .map_err(|_| format!("the LMS's {name} threw an error"))?;
        Ok(out.as_string().unwrap_or_else(|| {
            if out.is_truthy() {
                "true".into()
            } else {
                String::new()
            }
        }))
    }
}

/// Where the course's copy of the learner's results stands, for the quiz's quiet line.
#[derive(Clone, Debug, PartialEq)]
pub enum Reporting {
    /// Connected; nothing sent yet.
    Connected,
    /// The last answer reached the course, with this score out of 100.
    Sent(u32),
    /// The course could not take it: the LMS's words.
    Failed(String),
}

impl Reporting {
    /// The quiz's line about it.
    pub fn line(&self) -> String {
        match self {
            Reporting::Connected => "This course records your quiz answers and score.".into(),
            Reporting::Sent(s) => format!("Sent to your course: score {s} of 100."),
            Reporting::Failed(why) => format!(
                "Your course did not take your answers ({why}); they are kept in this browser."
            ),
        }
    }
}

/// The course link the page provides when an LMS is there.
#[derive(Clone, Copy)]
pub struct Course {
    api: StoredValue<ScormApi, LocalStorage>,
    /// The quiz's quiet line.
    pub reporting: RwSignal<Reporting>,
    /// The share that passes (the LMS's, else the manifest's).
    pub mastery: u32,
    /// The answers the course kept from an earlier visit, if any.
    pub resumed: StoredValue<Option<Progress>>,
}

impl Course {
    /// Reports `p` after an answer: status, score, the answers to resume from; then commits.
    pub fn report(&self, p: &Progress) {
        let api = self.api.get_value();
        let sent = scorm::values(p, self.mastery)
            .iter()
            .try_for_each(|(k, v)| api.call("LMSSetValue", &[k, v]).map(drop))
            .and_then(|()| api.call("LMSCommit", &[""]).map(drop));
        self.reporting.set(match sent {
            Ok(()) => Reporting::Sent(scorm::score_raw(p)),
            Err(why) => Reporting::Failed(why),
        });
    }
}

/// The course, if the page runs inside one (from [`connect`]).
pub fn use_course() -> Option<Course> {
    use_context::<Course>()
}

fn api_on(w: &web_sys::Window) -> Option<Object> {
    // A cross-origin frame's properties throw: not there, look further up.
    Reflect::get(w, &JsValue::from_str("API"))
        .ok()
        .filter(JsValue::is_object)
        .map(JsCast::unchecked_into)
}

fn up_from(mut w: web_sys::Window) -> Option<Object> {
    for _ in 0..=MAX_HOPS {
        if let Some(api) = api_on(&w) {
            return Some(api);
        }
        match w.parent() {
            Ok(Some(p)) if !Object::is(&p, &w) => w = p,
            _ => return None,
        }
    }
    None
}

fn find_api() -> Option<ScormApi> {
    let here = window();
    up_from(here.clone())
        .or_else(|| {
            let opener = here.opener().ok().filter(|o| o.is_object())?;
            up_from(opener.unchecked_into())
        })
        .map(ScormApi)
}

/// Opens the session with the LMS when there is one and provides [`Course`]; marks the
/// lesson started unless it is already passed or failed; finishes on `pagehide`.
pub fn connect() {
    let Some(api) = find_api() else {
        return;
    };
    let started = js_sys::Date::now();
    let opened = api.call("LMSInitialize", &[""]);
    let status = api
        .call("LMSGetValue", &["cmi.core.lesson_status"])
        .unwrap_or_default();
    let mastery = scorm::mastery(
        api.call("LMSGetValue", &["cmi.student_data.mastery_score"])
            .ok()
            .as_deref(),
    );
    let resumed = api
        .call("LMSGetValue", &["cmi.suspend_data"])
        .ok()
        .filter(|s| !s.trim().is_empty())
        .map(|s| Progress::from_json(&s))
        .filter(|p| !p.answers.is_empty());
    let begun = match opened {
        Err(why) => Err(why),
        Ok(_) if matches!(status.as_str(), "passed" | "failed" | "completed") => Ok(()),
        Ok(_) => api
            .call(
                "LMSSetValue",
                &[
                    "cmi.core.lesson_status",
                    scorm::LessonStatus::Incomplete.as_str(),
                ],
            )
            .and_then(|_| api.call("LMSCommit", &[""]))
            .map(drop),
    };
    let reporting = RwSignal::new(match begun {
        Ok(()) => Reporting::Connected,
        Err(why) => Reporting::Failed(why),
    });
    let finish = api.clone();
    let handle = window_event_listener(leptos::ev::pagehide, move |_| {
        let spent = (js_sys::Date::now() - started).max(0.0) as u64;
        let _ = finish.call(
            "LMSSetValue",
            &["cmi.core.session_time", &scorm::session_time(spent)],
        );
        let _ = finish.call("LMSCommit", &[""]);
        let _ = finish.call("LMSFinish", &[""]);
    });
    on_cleanup(move || handle.remove());
    provide_context(Course {
        api: StoredValue::new_local(api),
        reporting,
        mastery,
        resumed: StoredValue::new(resumed),
    });
}

/// Posts `msg` (JSON) to the parent window, if the page is in a frame: as an object, or as
/// the JSON text itself when `as_text` (Canvas reads its resize message that way).
pub fn tell_parent(msg: &str, as_text: bool) {
    let here = window();
    let Ok(Some(parent)) = here.parent() else {
        return;
    };
    if Object::is(&parent, &here) {
        return;
    }
    let value = if as_text {
        Ok(JsValue::from_str(msg))
    } else {
        js_sys::JSON::parse(msg)
    };
    if let Ok(v) = value {
        let _ = parent.post_message(&v, "*");
    }
}
