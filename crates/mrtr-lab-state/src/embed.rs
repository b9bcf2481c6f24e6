//! `?embed=<widget>&theme=light|dark`: one widget alone, for an iframe in someone's docs.

use super::link::Widget;

/// Where the reader's theme is kept in the browser: index.html's start-up script reads the
/// same key (a test below holds the two to it).
pub const THEME_KEY: &str = "mrtr-lab.theme";

/// An embedded widget's theme, chosen by `&theme=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// The light theme.
    Light,
    /// The dark theme.
    Dark,
}

impl Theme {
    /// The theme's name in a query and in storage.
    pub fn id(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// A theme by its name.
    pub fn from_id(s: &str) -> Option<Theme> {
        match s {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
}

/// How the chosen theme is kept in the browser's storage: its id; anything else stored there
/// reads as no choice (follow the system), as index.html's first-paint script reads it.
pub struct ThemeCodec;

impl codee::Encoder<Option<Theme>> for ThemeCodec {
    type Error = ();
    type Encoded = String;
    fn encode(t: &Option<Theme>) -> Result<String, ()> {
        Ok(t.map_or("", Theme::id).to_owned())
    }
}

impl codee::Decoder<Option<Theme>> for ThemeCodec {
    type Error = ();
    type Encoded = str;
    fn decode(s: &str) -> Result<Option<Theme>, ()> {
        Ok(Theme::from_id(s))
    }
}

/// What the page's query (`?embed=…&theme=…&compact=1`) asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// The widget shown alone (`?embed=`), if any.
    pub embed: Option<Widget>,
    /// `&compact=1`: the wire log folded and the extras (hints, settings) hidden.
    pub compact: bool,
    /// What could not be read, said on the page.
    pub notes: Vec<String>,
}

/// Reads `location.search`. Unknown values are noted and ignored.
pub fn parse_query(search: &str) -> Query {
    let mut q = Query::default();
    let s = search.strip_prefix('?').unwrap_or(search);
    if s.len() > 512 {
        q.notes.push("the query string is too long".into());
        return q;
    }
    for pair in s.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "embed" => match Widget::from_id(v) {
                Some(w) => q.embed = Some(w),
                None => q
                    .notes
                    .push(format!("there is no widget called {v:?} to embed")),
            },
            "compact" => match v {
                "1" => q.compact = true,
                "0" => q.compact = false,
                _ => q.notes.push(format!("compact={v:?} is not 1 or 0")),
            },
            // index.html applies `&theme=` before the first paint (the one place that rule
            // is written); here a value it cannot apply is only noted.
            "theme" if Theme::from_id(v).is_none() => {
                q.notes.push(format!("theme={v:?} is not light or dark"));
            }
            _ => {}
        }
    }
    q
}

/// The title an iframe of this widget should carry.
pub fn widget_title(w: Widget) -> &'static str {
    match w {
        Widget::RoundTrip => "MRTR Lab: one deploy, two replicas",
        Widget::Ticket => "MRTR Lab: inside the ticket",
        Widget::Bench => "MRTR Lab: the attack bench",
        Widget::Task => "MRTR Lab: the deploy as a task",
        Widget::Raw => "MRTR Lab: run it raw",
        Widget::Code => "MRTR Lab: read the code",
        Widget::Rules => "MRTR Lab: who may ask for what",
        Widget::Quiz => "MRTR Lab: check yourself",
        Widget::Audit => "MRTR Lab: audit your server",
        Widget::Live => "MRTR Lab: try it on a real server",
    }
}

/// The copy-paste snippet for embedding `w` from `base` (the page's own URL, no query).
pub fn snippet(base: &str, w: Widget) -> String {
    format!(
        "<iframe src=\"{base}?embed={}\" title=\"{}\" style=\"width:100%;border:0\" loading=\"lazy\"></iframe>\n<script>addEventListener('message',e=>{{if(e.data&&e.data.type==='mrtr-lab:height')for(const f of document.querySelectorAll('iframe'))if(f.contentWindow===e.source)f.style.height=e.data.height+'px'}})</script>",
        w.id(),
        widget_title(w)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theme_is_stored_by_its_id_and_anything_else_follows_the_system() {
        use codee::{Decoder, Encoder};
        for t in [Some(Theme::Light), Some(Theme::Dark), None] {
            assert_eq!(ThemeCodec::decode(&ThemeCodec::encode(&t).unwrap()), Ok(t));
        }
        for junk in ["", "Dark", "blue", "{}"] {
            assert_eq!(ThemeCodec::decode(junk), Ok(None), "{junk}");
        }
    }

    /// index.html's start-up script applies the theme and names the embedded widget before
    /// the first paint, so it cannot wait for this module: it must read the same storage key,
    /// take the same theme ids, and send the same old names to the bench.
    #[test]
    fn the_start_up_script_follows_these_rules() {
        let page = include_str!("../../../index.html");
        let script = &page[page.find("<script>").unwrap()..page.find("</script>").unwrap()];
        assert!(script.contains(&format!("localStorage.getItem('{THEME_KEY}')")));
        for t in [Theme::Light, Theme::Dark] {
            assert!(script.contains(&format!("theme === '{}'", t.id())), "{t:?}");
        }
        for old in ["timeline", "misuse"] {
            assert_eq!(Widget::from_id(old), Some(Widget::Bench));
            assert!(script.contains(&format!("embed === '{old}'")), "{old}");
        }
        assert!(script.contains(&format!("? '{}' : embed", Widget::Bench.id())));
    }

    #[test]
    fn queries() {
        assert_eq!(parse_query(""), Query::default());
        let q = parse_query("?embed=timeline&theme=dark&utm=x");
        assert_eq!((q.embed, q.notes.len()), (Some(Widget::Bench), 0));
        let q = parse_query("?embed=misuse&compact=1");
        assert_eq!(
            (q.embed, q.compact, q.notes.len()),
            (Some(Widget::Bench), true, 0)
        );
        assert_eq!(parse_query("?compact=yes").notes.len(), 1);
        let q = parse_query("?embed=nope&theme=pink");
        assert_eq!((q.embed, q.notes.len()), (None, 2));
        assert_eq!(parse_query(&"a".repeat(600)).notes.len(), 1);
        for w in Widget::ALL {
            let s = snippet("https://example.org/course/", w);
            assert!(s.contains(&format!("?embed={}", w.id())) && s.contains(widget_title(w)));
        }
    }
}
