//! What the page tells a course platform (an LMS) about the quiz: SCORM 1.2's data model
//! values, and the messages a host that is not SCORM hears. Plain values from the quiz's
//! own [`Progress::score`], so the course sees the count the page shows, never a second tally.
//! (`components::lms` finds the LMS's API and makes the calls.)

use serde_json::json;

use super::quiz::Progress;

/// The share of right answers that passes, in percent, unless the LMS sets its own
/// (`cmi.student_data.mastery_score`). `scripts/scorm.sh` writes the same number into the
/// package's manifest (`adlcp:masteryscore`), reading it from this line.
pub const MASTERY_PERCENT: u32 = 80;

/// SCORM 1.2 keeps at most this many characters of `cmi.suspend_data`.
pub const SUSPEND_LIMIT: usize = 4096;

/// `cmi.core.lesson_status` as the page sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonStatus {
    /// Started, the quiz not yet done.
    Incomplete,
    /// Every question answered, the score at or above the mastery score.
    Passed,
    /// Every question answered, the score below it.
    Failed,
}

impl LessonStatus {
    /// The data model's vocabulary.
    pub fn as_str(self) -> &'static str {
        match self {
            LessonStatus::Incomplete => "incomplete",
            LessonStatus::Passed => "passed",
            LessonStatus::Failed => "failed",
        }
    }
}

/// The quiz's score out of 100: right answers of all questions, rounded down.
pub fn score_raw(p: &Progress) -> u32 {
    let (right, _, total) = p.score();
    (right * 100 / total.max(1)) as u32
}

/// The mastery score an LMS gave (`cmi.student_data.mastery_score`, 0–100), else ours.
pub fn mastery(from_lms: Option<&str>) -> u32 {
    // A CMIDecimal read by hand ("80", "75.5"), rounded up: parsing floats would cost the
    // page's module kilobytes.
    let read = |s: &str| -> Option<u32> {
        let (whole, frac) = s.trim().split_once('.').unwrap_or((s.trim(), ""));
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || !(frac.is_empty() || digits(frac)) || whole.len() > 3 {
            return None;
        }
        let m = whole.parse::<u32>().ok()? + u32::from(frac.bytes().any(|b| b != b'0'));
        (m <= 100).then_some(m)
    };
    from_lms.and_then(read).unwrap_or(MASTERY_PERCENT)
}

/// Where the learner stands: incomplete until every question is answered, then passed or
/// failed against `mastery`.
pub fn status(p: &Progress, mastery: u32) -> LessonStatus {
    let (_, answered, total) = p.score();
    if answered < total {
        LessonStatus::Incomplete
    } else if score_raw(p) >= mastery {
        LessonStatus::Passed
    } else {
        LessonStatus::Failed
    }
}

/// The values written after each answer, in the order they are set.
pub fn values(p: &Progress, mastery: u32) -> Vec<(&'static str, String)> {
    vec![
        (
            "cmi.core.lesson_status",
            status(p, mastery).as_str().to_owned(),
        ),
        ("cmi.core.score.raw", score_raw(p).to_string()),
        ("cmi.core.score.min", "0".to_owned()),
        ("cmi.core.score.max", "100".to_owned()),
        ("cmi.suspend_data", suspend_data(p)),
    ]
}

/// The learner's answers, kept by the LMS so a return visit resumes: the quiz's own stored
/// form, which fits SCORM 1.2's limit with every question answered (tested below).
pub fn suspend_data(p: &Progress) -> String {
    p.to_json()
}

/// A session's length in SCORM 1.2's `CMITimespan`: `HHHH:MM:SS.SS` (hours capped at 9999).
pub fn session_time(ms: u64) -> String {
    let centis = ms / 10;
    let hours = (centis / 360_000).min(9999);
    let mins = centis / 6000 % 60;
    let secs = centis / 100 % 60;
    let frac = centis % 100;
    format!("{hours:04}:{mins:02}:{secs:02}.{frac:02}")
}

/// The message to a parent window that is not an LMS, after each answer.
pub fn quiz_message(p: &Progress, mastery: u32) -> String {
    let (right, answered, total) = p.score();
    json!({
        "type": "mrtr-lab:quiz",
        "answered": answered,
        "correct": right,
        "total": total,
        "passed": status(p, mastery) == LessonStatus::Passed,
    })
    .to_string()
}

/// The message naming the widgets the learner has worked through, by their ids.
pub fn progress_message(widgets: &[&str]) -> String {
    json!({"type": "mrtr-lab:progress", "widgets": widgets}).to_string()
}

/// Canvas's resize message (`lti.frameResize`), sent beside the page's own height message.
pub fn canvas_resize(height: i32) -> String {
    json!({"subject": "lti.frameResize", "height": height}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quiz::QUESTIONS;

    /// Every question answered with its right options (or the first wrong one when `wrong`).
    fn answered(wrong: usize) -> Progress {
        let mut p = Progress::default();
        for (i, q) in QUESTIONS.iter().enumerate() {
            let right: Vec<usize> = (0..q.options.len()).filter(|o| q.options[*o].1).collect();
            let pick = if i < wrong {
                vec![(0..q.options.len()).find(|o| !q.options[*o].1).unwrap()]
            } else {
                right
            };
            p.answers.insert(q.id.to_owned(), pick);
        }
        p
    }

    #[test]
    fn all_right_passes_with_100_and_a_wrong_answer_lowers_the_score() {
        let p = answered(0);
        assert_eq!(score_raw(&p), 100);
        assert_eq!(status(&p, MASTERY_PERCENT), LessonStatus::Passed);
        let total = QUESTIONS.len() as u32;
        let p = answered(QUESTIONS.len());
        assert_eq!(
            (score_raw(&p), status(&p, MASTERY_PERCENT)),
            (0, LessonStatus::Failed)
        );
        // Enough wrong answers to fall under the mastery score: failed, with the same count
        // the page shows.
        let wrong = QUESTIONS.len().div_ceil(2);
        let p = answered(wrong);
        assert_eq!(score_raw(&p), (total - wrong as u32) * 100 / total);
        assert_eq!(status(&p, MASTERY_PERCENT), LessonStatus::Failed);
    }

    #[test]
    fn unfinished_is_incomplete_whatever_the_score() {
        let mut p = answered(0);
        p.answers.remove(QUESTIONS[0].id);
        assert_eq!(status(&p, 0), LessonStatus::Incomplete);
        assert_eq!(status(&Progress::default(), 0), LessonStatus::Incomplete);
    }

    #[test]
    fn the_lms_mastery_score_wins_when_it_is_one() {
        assert_eq!(mastery(Some("90")), 90);
        assert_eq!(mastery(Some(" 75.5 ")), 76);
        assert_eq!(mastery(Some("100")), 100);
        assert_eq!(mastery(Some("0")), 0);
        for junk in [
            None,
            Some(""),
            Some("high"),
            Some("120"),
            Some("-1"),
            Some("1e2"),
            Some(".5"),
            Some("99.9x"),
            Some("100.5"),
        ] {
            assert_eq!(mastery(junk), MASTERY_PERCENT, "{junk:?}");
        }
    }

    #[test]
    fn answers_fit_suspend_data_and_resume_as_they_were() {
        let p = answered(2);
        let kept = suspend_data(&p);
        assert!(kept.len() <= SUSPEND_LIMIT, "{} characters", kept.len());
        assert_eq!(Progress::from_json(&kept), p);
    }

    #[test]
    fn session_time_is_a_cmi_timespan() {
        assert_eq!(session_time(0), "0000:00:00.00");
        assert_eq!(session_time(3_723_450), "0001:02:03.45");
        assert_eq!(
            session_time(u64::MAX),
            format!("9999:{}", &session_time(u64::MAX)[5..])
        );
    }

    #[test]
    fn the_messages_carry_the_pages_count() {
        let v: serde_json::Value = serde_json::from_str(&quiz_message(&answered(0), 80)).unwrap();
        assert_eq!(v["type"], "mrtr-lab:quiz");
        assert_eq!(v["correct"], QUESTIONS.len());
        assert_eq!(v["passed"], true);
        let v: serde_json::Value =
            serde_json::from_str(&progress_message(&["roundtrip", "quiz"])).unwrap();
        assert_eq!(v["widgets"][1], "quiz");
        assert!(canvas_resize(640).contains("\"lti.frameResize\""));
    }

    #[test]
    fn the_manifest_script_reads_this_mastery_score() {
        let script = include_str!("../../../scripts/scorm.sh");
        assert!(
            script.contains("MASTERY_PERCENT: u32 = "),
            "scorm.sh reads the constant"
        );
    }
}
