//! Deep links: every widget state lives in the URL fragment, e.g.
//! `#w=roundtrip&end=tampered&step=4&speed=2&ttl=60&seal=aead&single=1&store=replica&bkey=other&offb=signature`.
//! Parsing never fails: what cannot be read falls back to the default and is reported in a
//! note the page shows.

use mrtr_core::checks::CheckPolicy;
use mrtr_core::ticket::Seal;
use mrtr_core::wire::ClientCapabilities;
use mrtr_world::checks::switchable;
use mrtr_world::misuse::{default_times, Move};
use mrtr_world::raw::Breakage;
use mrtr_world::rules::METHODS;
use mrtr_world::tasks::{steps_from_text, steps_to_text, TaskStep};
use mrtr_world::{Ending, Knobs, StoreMode};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Characters kept as they are in a fragment value (tickets are base64url and dots).
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b',');

use super::code::Lang;
use super::playback::{clamp_speed, parse_speed, speed_text};

/// The widgets, by their fragment name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Widget {
    /// The round trip, step by step.
    #[default]
    RoundTrip,
    /// The ticket inspector.
    Ticket,
    /// The attack bench: every misuse of the ticket on one clock.
    Bench,
    /// The deploy as a task: bob's long deploy, polled, answered and cancelled step by step.
    Task,
    /// Run it raw: the two eras' transcripts side by side.
    Raw,
    /// Read the code: the deploy handler in three languages.
    Code,
    /// The rules explorer: which methods may ask for input, and for what.
    Rules,
    /// The quiz.
    Quiz,
    /// The audit card.
    Audit,
    /// Try it on a real server: the lab's client against the reader's server.
    Live,
}

impl Widget {
    /// Every widget, in the page's order.
    pub const ALL: [Widget; 10] = [
        Widget::RoundTrip,
        Widget::Ticket,
        Widget::Bench,
        Widget::Task,
        Widget::Raw,
        Widget::Code,
        Widget::Rules,
        Widget::Quiz,
        Widget::Audit,
        Widget::Live,
    ];

    /// The widget's name in a link (`w=`).
    pub fn id(self) -> &'static str {
        match self {
            Widget::RoundTrip => "roundtrip",
            Widget::Ticket => "ticket",
            Widget::Bench => "bench",
            Widget::Task => "task",
            Widget::Raw => "raw",
            Widget::Code => "code",
            Widget::Rules => "rules",
            Widget::Quiz => "quiz",
            Widget::Audit => "audit",
            Widget::Live => "live",
        }
    }

    /// A widget by its name; the two the bench replaced open the bench, so old links and
    /// embeds keep working.
    pub fn from_id(s: &str) -> Option<Widget> {
        match s {
            "timeline" | "misuse" => Some(Widget::Bench),
            _ => Widget::ALL.into_iter().find(|w| w.id() == s),
        }
    }
}

/// The whole page's state: what a deep link carries. A store: each field can be read and
/// written on its own (`link.step()`), and a change to one does not wake readers of another.
/// (With the `store` feature: the fuzz targets read links without Leptos.)
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "store", derive(reactive_stores::Store))]
pub struct Link {
    /// The widget the link points at (the page scrolls to it).
    pub widget: Widget,
    /// The knobs of the replicas (TTL, seal, checks, store, seed…).
    pub knobs: Knobs,
    // The round trip.
    /// The round trip: how the story ends.
    pub ending: Ending,
    /// The round trip: the step shown (from 0).
    pub step: usize,
    /// The round trip: the playback speed (1.0 is 1×).
    pub speed: f64,
    // The inspector: a ticket typed by the reader (None: bob's own).
    /// The inspector: a ticket typed by the reader (`None`: bob's own).
    pub ticket: Option<String>,
    // The bench: when each move is sent (in `Move::ALL`'s order), the move opened, and
    // whether the reader predicts before the reveal.
    /// The bench: when each move is sent, in seconds, in [`Move::ALL`]'s order.
    pub times: [u64; Move::ALL.len()],
    /// The bench: the move opened, if any.
    pub mv: Option<Move>,
    /// The bench: whether the reader predicts each move's fate before the reveal.
    pub predict: bool,
    // The deploy as a task: the reader's steps after bob's call.
    /// The deploy as a task: the steps played after bob's call, in order.
    pub task_steps: Vec<TaskStep>,
    // Run it raw: what is broken, and which legacy transport.
    /// Run it raw: what is broken.
    pub breakage: Breakage,
    /// Run it raw: the legacy lane runs over a stateless connection (`lane=stateless`).
    pub stateless: bool,
    // The rules explorer: the method, and the declared capabilities.
    /// The rules explorer: the method asked about.
    pub method: &'static str,
    /// The rules explorer: the capabilities the client declares.
    pub caps: ClientCapabilities,
    // The audit card: the sample report of a weak server is shown.
    /// The audit card: the sample report of a weak server is shown.
    pub audit_sample: bool,
    // Read the code: which language's handler (the step is the round trip's).
    /// Read the code: which language's handler is shown (the step is the round trip's).
    pub lang: Lang,
}

fn caps_list(c: &ClientCapabilities) -> String {
    let mut v = Vec::new();
    if c.elicitation_form {
        v.push("form");
    }
    if c.elicitation_url {
        v.push("url");
    }
    if c.sampling {
        v.push("sampling");
    }
    if c.roots {
        v.push("roots");
    }
    v.join(",")
}

/// The rules explorer's default: a client that declares form elicitation only.
pub fn default_caps() -> ClientCapabilities {
    ClientCapabilities {
        elicitation_form: true,
        ..Default::default()
    }
}

/// When replica B receives the inspector's retry, in seconds after the mint (the page's
/// intro to the inspector says so).
pub const INSPECTOR_AT_S: u64 = 8;
/// The latest time a move can be sent at.
pub const MAX_TIME_S: u64 = 600;

impl Default for Link {
    fn default() -> Self {
        Link {
            widget: Widget::RoundTrip,
            knobs: Knobs::default(),
            ending: Ending::Honest,
            step: 0,
            speed: 1.0,
            ticket: None,
            times: default_times(),
            mv: None,
            predict: true,
            task_steps: Vec::new(),
            breakage: Breakage::default(),
            stateless: false,
            method: METHODS[0],
            caps: default_caps(),
            audit_sample: false,
            lang: Lang::default(),
        }
    }
}

/// Longest fragment read; anything longer is ignored as a whole. It is as long as the
/// longest link [`Link::to_fragment`] writes, so every link the page writes reads back: a
/// typed ticket of [`mrtr_core::ticket::MAX_TICKET_LEN`] bytes, each percent-encoded (3
/// characters), and room for every other setting at its longest (under 1 KB).
pub const MAX_FRAGMENT: usize = 3 * mrtr_core::ticket::MAX_TICKET_LEN + 1024;
/// Longest ticket lifetime a link may set, in seconds (`ttl=`, from 1).
pub const MAX_TTL_S: u64 = 3600;
/// Highest round-trip step a link may set (`step=`).
pub const MAX_STEP: usize = 1000;

fn off_list(policy: &CheckPolicy) -> String {
    switchable()
        .filter(|c| !policy.runs(*c))
        .map(|c| c.id())
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_off(value: &str, notes: &mut Vec<String>, key: &str) -> CheckPolicy {
    let mut p = CheckPolicy::default();
    for id in value.split(',').filter(|s| !s.is_empty()) {
        match switchable().find(|c| c.id() == id) {
            Some(c) => p.set(c, false),
            None => notes.push(format!("{key}: unknown check {id:?}")),
        }
    }
    p
}

impl Link {
    /// Writes the fragment (without `#`), listing only what differs from the defaults.
    pub fn to_fragment(&self) -> String {
        let d = Knobs::default();
        let k = &self.knobs;
        let mut parts = vec![format!("w={}", self.widget.id())];
        if self.ending != Ending::Honest {
            parts.push(format!("end={}", self.ending.id()));
        }
        parts.push(format!("step={}", self.step));
        if self.speed != 1.0 {
            parts.push(format!("speed={}", speed_text(self.speed)));
        }
        if k.ttl_s != d.ttl_s {
            parts.push(format!("ttl={}", k.ttl_s));
        }
        if k.seal != d.seal {
            parts.push(format!("seal={}", k.seal.as_str()));
        }
        if k.single_use {
            parts.push("single=1".into());
        }
        if k.store != StoreMode::default() {
            parts.push(format!("store={}", k.store.id()));
        }
        if k.naive_ask_again {
            parts.push("naive=1".into());
        }
        if k.b_key_differs {
            parts.push("bkey=other".into());
        }
        for (key, policy) in [("offa", &k.policy_a), ("offb", &k.policy_b)] {
            let off = off_list(policy);
            if !off.is_empty() {
                parts.push(format!("{key}={off}"));
            }
        }
        if k.seed != d.seed {
            parts.push(format!("seed={}", k.seed));
        }
        if let Some(t) = &self.ticket {
            parts.push(format!("ticket={}", utf8_percent_encode(t, VALUE)));
        }
        if self.times != default_times() {
            parts.push(format!(
                "times={}",
                self.times.map(|t| t.to_string()).join(",")
            ));
        }
        if let Some(m) = self.mv {
            parts.push(format!("move={}", m.id()));
        }
        if !self.predict {
            parts.push("predict=0".into());
        }
        if !self.task_steps.is_empty() {
            parts.push(format!("tsteps={}", steps_to_text(&self.task_steps)));
        }
        if self.breakage.change_ticket {
            parts.push("chg=1".into());
        }
        if self.breakage.no_signature_check {
            parts.push("nosig=1".into());
        }
        if self.stateless {
            parts.push("lane=stateless".into());
        }
        if self.method != METHODS[0] {
            parts.push(format!("method={}", self.method));
        }
        if self.caps != default_caps() {
            parts.push(format!("caps={}", caps_list(&self.caps)));
        }
        if self.audit_sample {
            parts.push("sample=1".into());
        }
        if self.lang != Lang::default() {
            parts.push(format!("lang={}", self.lang.id()));
        }
        parts.join("&")
    }

    /// Reads a fragment (with or without `#`). Returns the link and notes on what was ignored.
    pub fn parse(fragment: &str) -> (Link, Vec<String>) {
        let mut link = Link::default();
        let mut notes = Vec::new();
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        if f.is_empty() {
            return (link, notes);
        }
        if f.len() > MAX_FRAGMENT {
            notes.push(format!("the link is over {MAX_FRAGMENT} characters"));
            return (link, notes);
        }
        for pair in f.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if link.set(key, value, &mut notes).is_none() {
                notes.push(format!("{key}={value:?} is not a valid setting"));
            }
        }
        (link, notes)
    }

    /// Takes one setting of a fragment; nothing when its value is not valid (a key no link
    /// has, or a value that says more, is noted here). One arm per key: a table, read top to
    /// bottom beside [`Link::to_fragment`].
    fn set(&mut self, key: &str, value: &str, notes: &mut Vec<String>) -> Option<()> {
        let k = &mut self.knobs;
        match key {
            "w" => match Widget::from_id(value) {
                Some(w) => self.widget = w,
                None => notes.push(format!("there is no widget called {value:?}")),
            },
            "end" => self.ending = Ending::from_id(value)?,
            "step" => self.step = value.parse().ok().filter(|s| *s <= MAX_STEP)?,
            "speed" => self.speed = clamp_speed(parse_speed(value).filter(|s| *s > 0.0)?),
            "ttl" => k.ttl_s = value.parse().ok().filter(|t| (1..=MAX_TTL_S).contains(t))?,
            "seal" => k.seal = Seal::parse(value)?,
            "single" => k.single_use = flag(value)?,
            "naive" => k.naive_ask_again = flag(value)?,
            "store" => k.store = StoreMode::from_id(value)?,
            "bkey" => {
                k.b_key_differs = match value {
                    "same" => false,
                    "other" => true,
                    _ => return None,
                }
            }
            "offa" => k.policy_a = parse_off(value, notes, key),
            "offb" => k.policy_b = parse_off(value, notes, key),
            "seed" => k.seed = value.parse().ok()?,
            "ticket" => {
                let t = percent_decode_str(value).decode_utf8().ok()?;
                if t.len() > mrtr_core::ticket::MAX_TICKET_LEN {
                    return None;
                }
                self.ticket = Some(t.into_owned());
            }
            // The inspector's retry time, from before the bench: its retry is now always sent
            // at 8 s, so an old link's value is read and dropped.
            "at" => {}
            "times" => {
                let ts = times_from_text(value)?;
                self.times[..ts.len()].copy_from_slice(&ts);
            }
            "move" => self.mv = Some(Move::from_id(value)?),
            "predict" => self.predict = flag(value)?,
            "tsteps" => self.task_steps = steps_from_text(value)?,
            "sample" => self.audit_sample = flag(value)?,
            "lang" => self.lang = Lang::from_id(value)?,
            "chg" => self.breakage.change_ticket = value == "1",
            "nosig" => self.breakage.no_signature_check = value == "1",
            "lane" => {
                self.stateless = match value {
                    "stateless" => true,
                    "stdio" => false,
                    _ => return None,
                }
            }
            "method" => self.method = METHODS.iter().find(|m| **m == value)?,
            "caps" => self.caps = caps_from_text(value)?,
            _ => notes.push(format!("unknown setting {key:?}")),
        }
        Some(())
    }
}

/// A switch in a link: `1` on, `0` off.
fn flag(value: &str) -> Option<bool> {
    match value {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// The bench's retry times: all its moves', the eleven it had before the memory's machine
/// could die, or the old timeline's six (each list is the first moves of the bench, in the
/// same order); each at most [`MAX_TIME_S`].
fn times_from_text(value: &str) -> Option<Vec<u64>> {
    let ts: Vec<u64> = value
        .split(',')
        .map(|t| t.parse::<u64>().ok().filter(|t| *t <= MAX_TIME_S))
        .collect::<Option<_>>()?;
    [Move::ALL.len(), 11, 6].contains(&ts.len()).then_some(ts)
}

/// The capabilities a link's client declares, by name; nothing if one name is unknown.
fn caps_from_text(value: &str) -> Option<ClientCapabilities> {
    let mut c = ClientCapabilities::default();
    for name in value.split(',').filter(|n| !n.is_empty()) {
        match name {
            "form" => c.elicitation_form = true,
            "url" => c.elicitation_url = true,
            "sampling" => c.sampling = true,
            "roots" => c.roots = true,
            _ => return None,
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Try it on a real server" keeps the server's URL and the token out of the link: the
    /// link of that widget names the widget and nothing the reader typed there.
    #[test]
    fn the_live_widget_link_carries_no_url_and_no_token() {
        let l = Link {
            widget: Widget::Live,
            ..Link::default()
        };
        let f = l.to_fragment();
        assert!(f.contains("w=live"), "{f}");
        for secret in ["token", "bearer", "url", "http", "127.0.0.1", "mcp"] {
            assert!(!f.to_ascii_lowercase().contains(secret), "{f}");
        }
        assert_eq!(Link::parse(&f).0.widget, Widget::Live);
    }

    #[test]
    fn default_round_trips() {
        let l = Link::default();
        assert_eq!(l.to_fragment(), "w=roundtrip&step=0");
        assert_eq!(Link::parse(&l.to_fragment()), (l.clone(), vec![]));
        assert_eq!(Link::parse(""), (l.clone(), vec![]));
        assert_eq!(Link::parse("#"), (l, vec![]));
    }

    #[test]
    fn every_knob_round_trips() {
        let mut l = Link {
            ending: Ending::Tampered,
            step: 4,
            speed: 2.0,
            ..Link::default()
        };
        l.knobs.ttl_s = 60;
        l.knobs.seal = Seal::Sealed;
        l.knobs.single_use = true;
        l.knobs.store = StoreMode::PerReplica;
        l.knobs.naive_ask_again = true;
        l.knobs.b_key_differs = true;
        l.knobs.policy_b.signature = false;
        l.knobs.policy_b.expiry = false;
        l.knobs.policy_a.principal = false;
        l.knobs.seed = 9;
        let f = l.to_fragment();
        assert_eq!(f, "w=roundtrip&end=tampered&step=4&speed=2&ttl=60&seal=aead&single=1&store=replica&naive=1&bkey=other&offa=principal&offb=signature,expiry&seed=9");
        assert_eq!(Link::parse(&format!("#{f}")), (l.clone(), vec![]));
        l.widget = Widget::Bench;
        l.ticket = Some("v1.abc.d e&f=g#h\u{e9}".into());
        l.times = [1, 2, 3, 4, 5, 600, 7, 8, 9, 10, 11, 12];
        l.mv = Some(Move::Forge);
        l.predict = false;
        l.breakage = Breakage {
            change_ticket: true,
            no_signature_check: true,
        };
        l.stateless = true;
        l.method = "prompts/list";
        l.caps = ClientCapabilities {
            sampling: true,
            roots: true,
            ..Default::default()
        };
        l.lang = Lang::Python;
        l.task_steps = vec![TaskStep::Wait(20), TaskStep::Poll, TaskStep::ThiefAnswers];
        let f = l.to_fragment();
        assert!(f.contains("tsteps=w20.p.ty"), "{f}");
        assert!(f.contains("ticket=v1.abc.d%20e%26f%3Dg%23h%C3%A9"), "{f}");
        assert!(f.ends_with("&lang=py"), "{f}");
        assert_eq!(Link::parse(&f), (l, vec![]));
    }

    #[test]
    fn a_link_from_before_the_twelfth_move_still_reads() {
        let (l, notes) = Link::parse("#w=bench&times=1,2,3,4,5,6,7,8,9,10,11&store=quorum");
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(l.times[..11], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(
            l.times[11],
            Link::default().times[11],
            "the new move keeps its time"
        );
        assert_eq!(l.knobs.store, StoreMode::Quorum);
    }

    #[test]
    fn the_longest_link_the_page_writes_reads_back() {
        // Found by fuzzing (deep_link): a typed ticket read from a link under the old
        // 2048-character limit could be written back longer than it (`+` reads as itself and
        // is written %2B), and the page could not read its own link.
        let mut l = Link {
            widget: Widget::Bench,
            ending: Ending::Tampered,
            step: MAX_STEP,
            speed: 0.25,
            ticket: Some("+\u{e9}".repeat(mrtr_core::ticket::MAX_TICKET_LEN / 3)),
            times: [MAX_TIME_S; Move::ALL.len()],
            mv: Some(Move::Forge),
            predict: false,
            breakage: Breakage {
                change_ticket: true,
                no_signature_check: true,
            },
            stateless: true,
            method: METHODS.iter().max_by_key(|m| m.len()).unwrap(),
            caps: ClientCapabilities {
                elicitation_form: true,
                elicitation_url: true,
                sampling: true,
                roots: true,
                ..Default::default()
            },
            audit_sample: true,
            lang: Lang::Python,
            task_steps: vec![
                TaskStep::Wait(mrtr_world::tasks::MAX_WAIT_S);
                mrtr_world::tasks::MAX_STEPS
            ],
            ..Link::default()
        };
        l.knobs.ttl_s = MAX_TTL_S;
        l.knobs.seal = Seal::Sealed;
        l.knobs.single_use = true;
        l.knobs.store = StoreMode::PerReplica;
        l.knobs.naive_ask_again = true;
        l.knobs.b_key_differs = true;
        for c in switchable() {
            l.knobs.policy_a.set(c, false);
            l.knobs.policy_b.set(c, false);
        }
        l.knobs.seed = u64::MAX;
        let f = l.to_fragment();
        assert!(f.len() <= MAX_FRAGMENT, "{} characters", f.len());
        assert_eq!(Link::parse(&f), (l, vec![]));
        let plus = format!("ticket={}", "+".repeat(1000));
        let (l, _) = Link::parse(&plus);
        assert_eq!(Link::parse(&l.to_fragment()), (l, vec![]));
    }

    #[test]
    fn the_inspectors_intro_gives_the_time_its_retry_is_sent() {
        let page = include_str!("../../../index.html");
        assert!(page.contains(&format!("sent at t = {INSPECTOR_AT_S} s")));
    }

    #[test]
    fn the_old_timeline_and_misuse_links_open_the_bench() {
        let (l, notes) = Link::parse("w=timeline&times=1,2,3,4,5,600&at=30");
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(l.widget, Widget::Bench);
        assert_eq!(l.times[..6], [1, 2, 3, 4, 5, 600]);
        assert_eq!(l.times[6..], default_times()[6..]);
        let (l, notes) = Link::parse("w=misuse&move=twice&predict=1");
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(
            (l.widget, l.mv, l.predict),
            (Widget::Bench, Some(Move::SendTwice), true)
        );
        assert_eq!(l.to_fragment(), "w=bench&step=0&move=twice");
    }

    #[test]
    fn bad_fragments_fall_back_with_notes() {
        let (l, notes) = Link::parse(
            "w=nope&step=-1&speed=NaN&ttl=0&seal=rot13&single=yes&offb=everything&zzz=1&end&times=1,2&move=fly&ticket=%FF&lang=cobol&times=1,2,3,4,5,x",
        );
        assert_eq!(l, Link::default());
        assert_eq!(notes.len(), 14, "{notes:?}");
        let (_, notes) = Link::parse(&"a".repeat(MAX_FRAGMENT + 1));
        assert_eq!(notes.len(), 1);
        let (l, _) = Link::parse("ttl=99999999999999999999999&step=2");
        assert_eq!((l.knobs.ttl_s, l.step), (120, 2));
    }
}

/// Properties over generated links and fragments (native only: proptest does not build for the
/// browser). They replace a small hand-rolled fuzz loop that only showed parsing never panics.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use super::*;
    use crate::playback::SPEEDS;
    use proptest::prelude::*;

    fn any_link() -> impl Strategy<Value = Link> {
        let world = (
            1..=MAX_TTL_S,
            any::<bool>(),
            any::<bool>(),
            0..StoreMode::ALL.len(),
            any::<bool>(),
            any::<bool>(),
            prop::collection::vec(any::<bool>(), switchable().count() * 2),
            any::<u64>(),
        )
            .prop_map(|(ttl_s, sealed, single, store, naive, bkey, off, seed)| {
                let mut k = Knobs {
                    ttl_s,
                    seal: if sealed { Seal::Sealed } else { Seal::Signed },
                    single_use: single,
                    store: StoreMode::ALL[store],
                    naive_ask_again: naive,
                    b_key_differs: bkey,
                    seed,
                    ..Knobs::default()
                };
                let n = switchable().count();
                for (i, c) in switchable().enumerate() {
                    k.policy_a.set(c, off[i]);
                    k.policy_b.set(c, off[n + i]);
                }
                k
            });
        let widgets = (
            prop::sample::select(Widget::ALL.to_vec()),
            any::<bool>(),
            0..=MAX_STEP,
            prop::sample::select(SPEEDS.to_vec()),
            prop::option::of(".{0,40}"),
        );
        let bench = (
            prop::collection::vec(0..=MAX_TIME_S, Move::ALL.len())
                .prop_map(|v| <[u64; Move::ALL.len()]>::try_from(v).unwrap_or_default()),
            prop::option::of(prop::sample::select(Move::ALL.to_vec())),
            any::<bool>(),
            prop::collection::vec(
                prop_oneof![
                    (1..=mrtr_world::tasks::MAX_WAIT_S).prop_map(TaskStep::Wait),
                    prop::sample::select(TaskStep::OFFERED.to_vec()),
                ],
                0..=mrtr_world::tasks::MAX_STEPS,
            ),
        );
        let rest = (
            any::<[bool; 3]>(),
            prop::sample::select(METHODS.to_vec()),
            any::<[bool; 4]>(),
            any::<bool>(),
            prop::sample::select(Lang::ALL.to_vec()),
        );
        (world, widgets, bench, rest).prop_map(
            |(
                knobs,
                (widget, tampered, step, speed, ticket),
                (times, mv, predict, task_steps),
                ([chg, nosig, stateless], method, [form, url, sampling, roots], sample, lang),
            )| Link {
                widget,
                knobs,
                ending: if tampered {
                    Ending::Tampered
                } else {
                    Ending::Honest
                },
                step,
                speed,
                ticket,
                times,
                mv,
                predict,
                task_steps,
                breakage: Breakage {
                    change_ticket: chg,
                    no_signature_check: nosig,
                },
                stateless,
                method,
                caps: ClientCapabilities {
                    elicitation_form: form,
                    elicitation_url: url,
                    sampling,
                    roots,
                    ..Default::default()
                },
                audit_sample: sample,
                lang,
            },
        )
    }

    /// Fragments as a reader might type or mangle them: any text, the fragment's own
    /// punctuation, and a real link with a character changed.
    fn any_fragment() -> impl Strategy<Value = String> {
        let real = "w=roundtrip&end=tampered&step=4&speed=2&ttl=60&offb=signature&ticket=v1.a%2Bb";
        prop_oneof![
            any::<String>(),
            "[=&#,%.w0-9a-zé+ ]{0,48}",
            (0..real.len(), any::<char>()).prop_map(move |(i, c)| {
                let mut s: Vec<char> = real.chars().collect();
                let last = s.len() - 1;
                s[i.min(last)] = c;
                s.into_iter().collect()
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Every state the page can be in has a link that brings it back exactly, with no note.
        #[test]
        fn every_link_reads_back_from_its_fragment(l in any_link()) {
            let f = l.to_fragment();
            prop_assert!(f.len() <= MAX_FRAGMENT, "{} characters", f.len());
            prop_assert_eq!(Link::parse(&f), (l, vec![]));
        }

        /// Whatever is typed, what the page reads from it is a link it can write and read back
        /// the same: parse, write, parse gives the same link, and the second read has no note.
        #[test]
        fn parse_write_parse_gives_the_same_link(s in any_fragment()) {
            let (l, _) = Link::parse(&s);
            prop_assert_eq!(Link::parse(&l.to_fragment()), (l, vec![]));
        }
    }
}
