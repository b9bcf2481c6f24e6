//! The player: which step is shown, how far its animation has got, and whether it is playing.
//! Pure; the one animation-frame loop calls [`Playback::tick`].
//!
//! A [`Playback`] is a value put together for each move, never kept: the step and the speed
//! live in the link (every step has a URL), the number of steps is the trace's, and only the
//! [`Motion`] (how far the step has played, whether it plays) is the player's own.

/// How long one step plays at 1× speed.
pub const STEP_MS: f64 = 2600.0;
/// The speeds offered.
pub const SPEEDS: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// The round trip's player: the step shown, how far its animation is, and how it plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    /// The step shown (from 0).
    pub step: usize,
    /// 0 = the step just started, 1 = settled (every message arrived).
    pub progress: f64,
    /// Whether the player is playing.
    pub playing: bool,
    /// The playback speed (1.0 is 1×).
    pub speed: f64,
    /// How many steps the trace has (at least 1).
    pub steps: usize,
}

/// What only the player knows; the rest of a [`Playback`] lives elsewhere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// How far the step's animation is: 0 just started, 1 settled.
    pub progress: f64,
    /// Whether the player is playing.
    pub playing: bool,
}

impl Motion {
    /// The step settled, paused: how every link opens.
    pub const SETTLED: Motion = Motion {
        progress: 1.0,
        playing: false,
    };
}

impl Playback {
    /// The player at the link's `step` and `speed`, with a trace of `steps` steps and its own
    /// `motion`. A step past the end shows the last one: a link keeps its step when the
    /// ending changes under it, and shows what fits.
    pub fn of(step: usize, steps: usize, speed: f64, motion: Motion) -> Playback {
        Playback {
            progress: motion.progress,
            playing: motion.playing,
            ..Playback::at(step, steps, speed)
        }
    }

    /// The part of the player that is its own, to keep after a move.
    pub fn motion(&self) -> Motion {
        Motion {
            progress: self.progress,
            playing: self.playing,
        }
    }

    /// Shows `step` settled, paused.
    pub fn at(step: usize, steps: usize, speed: f64) -> Playback {
        let steps = steps.max(1);
        Playback {
            step: step.min(steps - 1),
            progress: 1.0,
            playing: false,
            speed: clamp_speed(speed),
            steps,
        }
    }

    /// True when the last step has settled.
    pub fn at_end(&self) -> bool {
        self.step + 1 >= self.steps && self.progress >= 1.0
    }

    /// Advances by `dt_ms` of real time. Returns true when something changed.
    pub fn tick(&mut self, dt_ms: f64) -> bool {
        if !self.playing || !dt_ms.is_finite() || dt_ms <= 0.0 {
            return false;
        }
        self.progress += dt_ms * self.speed / STEP_MS;
        while self.progress >= 1.0 {
            if self.step + 1 < self.steps {
                self.step += 1;
                self.progress -= 1.0;
            } else {
                self.progress = 1.0;
                self.playing = false;
                break;
            }
        }
        true
    }

    /// Play from here; at the end, play from the start.
    pub fn play(&mut self) {
        if self.at_end() {
            self.step = 0;
            self.progress = 0.0;
        } else if self.progress >= 1.0 && self.step + 1 < self.steps {
            self.step += 1;
            self.progress = 0.0;
        }
        self.playing = true;
    }

    /// Stops where it is.
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// Plays when paused, pauses when playing.
    pub fn toggle(&mut self) {
        if self.playing {
            self.pause()
        } else {
            self.play()
        }
    }

    /// Pauses, then settles the step if it is under way, else moves to the next step (never past the last).
    pub fn forward(&mut self) {
        self.playing = false;
        if self.progress < 1.0 {
            self.progress = 1.0;
        } else {
            self.step = (self.step + 1).min(self.steps - 1);
        }
    }

    /// Pauses and shows the previous step settled (the first stays the first).
    pub fn back(&mut self) {
        self.playing = false;
        self.step = self.step.saturating_sub(1);
        self.progress = 1.0;
    }

    /// Pauses and shows `step` settled (past the end: the last).
    pub fn seek(&mut self, step: usize) {
        self.playing = false;
        self.step = step.min(self.steps - 1);
        self.progress = 1.0;
    }

    /// Pauses and shows the first step settled.
    pub fn restart(&mut self) {
        self.playing = false;
        self.step = 0;
        self.progress = 1.0;
    }

    /// Sets the speed, clamped to the speeds offered.
    pub fn set_speed(&mut self, speed: f64) {
        self.speed = clamp_speed(speed);
    }
}

/// How a speed is written in links and menus. Written from a table rather than formatted,
/// so the page carries no float formatter (about 13 KB of wasm).
pub fn speed_text(s: f64) -> &'static str {
    const TEXT: [&str; 5] = ["0.25", "0.5", "1", "2", "4"];
    let s = clamp_speed(s);
    SPEEDS.iter().position(|&x| x == s).map_or("1", |i| TEXT[i])
}

/// Reads a plain decimal such as `2`, `0.5` or `.25` (no sign, no exponent) without the
/// float parser. Anything else is `None`.
pub fn parse_speed(text: &str) -> Option<f64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |d: &str| d.len() <= 6 && d.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let whole = int.parse::<u32>().unwrap_or(0) as f64;
    let part = frac.parse::<u32>().unwrap_or(0) as f64 / 10u32.pow(frac.len() as u32) as f64;
    Some(whole + part)
}

/// The nearest offered speed.
pub fn clamp_speed(s: f64) -> f64 {
    if !s.is_finite() {
        return 1.0;
    }
    SPEEDS
        .iter()
        .copied()
        .min_by(|a, b| (a - s).abs().total_cmp(&(b - s).abs()))
        .unwrap_or(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playing_walks_through_every_step_and_stops_at_the_end() {
        let mut p = Playback::at(0, 6, 1.0);
        p.restart();
        p.play();
        assert_eq!((p.step, p.progress), (1, 0.0));
        let mut steps_seen = vec![p.step];
        for _ in 0..200 {
            p.tick(100.0);
            if steps_seen.last() != Some(&p.step) {
                steps_seen.push(p.step);
            }
        }
        assert_eq!(steps_seen, [1, 2, 3, 4, 5]);
        assert!(p.at_end() && !p.playing);
        p.play();
        assert_eq!((p.step, p.playing), (0, true));
    }

    #[test]
    fn speed_scales_time() {
        let mut a = Playback {
            step: 0,
            progress: 0.0,
            playing: true,
            speed: 4.0,
            steps: 6,
        };
        let mut b = Playback { speed: 0.25, ..a };
        a.tick(STEP_MS / 8.0);
        b.tick(STEP_MS / 8.0);
        assert_eq!(a.progress, 0.5);
        assert_eq!(b.progress, 1.0 / 32.0);
        assert!(!a.clone().tick(f64::NAN));
    }

    #[test]
    fn stepping_settles_and_clamps() {
        let mut p = Playback::at(99, 6, 9.0);
        assert_eq!((p.step, p.speed), (5, 4.0));
        p.forward();
        assert_eq!(p.step, 5);
        p.back();
        p.back();
        assert_eq!((p.step, p.progress), (3, 1.0));
        p.seek(0);
        p.back();
        assert_eq!(p.step, 0);
        let mut q = Playback {
            step: 2,
            progress: 0.3,
            playing: true,
            speed: 1.0,
            steps: 6,
        };
        q.forward();
        assert_eq!((q.step, q.progress, q.playing), (2, 1.0, false));
        assert_eq!(clamp_speed(3.1), 4.0);
        assert_eq!(clamp_speed(f64::INFINITY), 1.0);
    }

    #[test]
    fn a_player_put_together_from_its_homes_keeps_each_part() {
        let m = Motion {
            progress: 0.25,
            playing: true,
        };
        let p = Playback::of(9, 6, 2.0, m);
        assert_eq!((p.step, p.steps, p.speed, p.motion()), (5, 6, 2.0, m));
        assert_eq!(Playback::of(3, 0, 1.0, Motion::SETTLED).step, 0);
        let mut q = Playback::of(2, 6, 1.0, Motion::SETTLED);
        q.play();
        assert_eq!(
            (q.step, q.motion()),
            (
                3,
                Motion {
                    progress: 0.0,
                    playing: true
                }
            )
        );
    }

    #[test]
    fn speeds_are_written_and_read_without_float_formatting() {
        for s in SPEEDS {
            assert_eq!(parse_speed(speed_text(s)), Some(s));
            assert_eq!(speed_text(s), s.to_string());
        }
        assert_eq!(parse_speed(".25"), Some(0.25));
        assert_eq!(parse_speed("3"), Some(3.0));
        for bad in ["", ".", "NaN", "-1", "1e3", "inf", "1.2.3", "9999999", " 1"] {
            assert_eq!(parse_speed(bad), None, "{bad}");
        }
    }
}
